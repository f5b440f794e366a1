// The digital-cinema and IMF profiles. Generated 12-bit frames of
// 2K and 4K (gradients plus noise, so the byte limits bind) are encoded with
// each profile; the markers are checked field by field against the profile's
// rules (15444-1 Amd 1 / Amd 8, as opj_compress sets them), the file and each
// component's tile-parts against the byte limits, and opj_decompress must
// decode them. Then the errors for inputs and options the profiles refuse.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <numeric>

#include "codec/codec.h"
#include "codec/codestream/codestream_reader.h"
#include "common/metrics.h"
#include "tests/interop/generated.h"
#include "tests/interop/opj.h"

namespace mallat::codec {
namespace {

namespace fs = std::filesystem;
using testing::generated_image;

// The frame with every component a copy of the first: after the ICT all its
// detail is in Y, so Y alone would take most of the frame's bytes.
Image grey_frame(int64_t w, int64_t h) {
  Image image = generated_image(w, h, 3, 12, false, 5);
  image.components[1].samples = image.components[0].samples;
  image.components[2].samples = image.components[0].samples;
  return image;
}

Profile cinema(ProfileKind kind, int fps) {
  Profile p;
  p.kind = kind;
  p.frame_rate = fps;
  return p;
}

Result<std::vector<uint8_t>> encode_with(const Image& image, const Profile& p, EncodeOptions base = {}) {
  base.threads = 2;
  return encode(image, profile_options(p, base));
}

// Bytes of each component's tile-parts (Psot), where tile-part i holds
// component i mod 3 (CPRL, one tile-part per component, the 4K POC).
std::vector<uint64_t> component_bytes(const Codestream& cs) {
  std::vector<uint64_t> bytes(3, 0);
  const auto& parts = cs.tiles.at(0).parts;
  for (size_t i = 0; i < parts.size(); ++i) bytes[i % 3] += parts[i].psot;
  return bytes;
}

// The markers every cinema stream shares (Amd 1; opj_j2k_set_cinema_parameters).
void expect_cinema_markers(const Codestream& cs, uint16_t rsiz, int levels, int parts) {
  const MainHeader& m = cs.main;
  EXPECT_EQ(m.siz.rsiz, rsiz);
  EXPECT_EQ(m.siz.xosiz, 0u);
  EXPECT_EQ(m.siz.yosiz, 0u);
  EXPECT_EQ(m.siz.xtsiz, m.siz.xsiz) << "one tile";
  EXPECT_EQ(m.siz.ytsiz, m.siz.ysiz);
  ASSERT_EQ(m.siz.components.size(), 3u);
  for (const ComponentSize& c : m.siz.components) {
    EXPECT_EQ(c.precision, 12);
    EXPECT_FALSE(c.is_signed);
    EXPECT_EQ(c.dx, 1);
    EXPECT_EQ(c.dy, 1);
  }
  EXPECT_EQ(m.cod.order, ProgressionOrder::kCPRL);
  EXPECT_EQ(m.cod.layers, 1);
  EXPECT_TRUE(m.cod.multiple_component_transform) << "ICT";
  const ComponentCoding& cc = m.cod.component;
  EXPECT_EQ(cc.levels, levels);
  EXPECT_EQ(cc.xcb, 5);
  EXPECT_EQ(cc.ycb, 5);
  EXPECT_EQ(cc.style.to_byte(), 0) << "no mode switches";
  EXPECT_FALSE(cc.reversible) << "9/7";
  ASSERT_EQ(cc.precinct_exponents.size(), static_cast<size_t>(levels + 1));
  EXPECT_EQ(cc.precinct_exponents[0], (std::array<uint8_t, 2>{7, 7})) << "128x128 at the lowest resolution";
  for (int r = 1; r <= levels; ++r) EXPECT_EQ(cc.precinct_exponents[r], (std::array<uint8_t, 2>{8, 8})) << r;
  EXPECT_TRUE(m.coc.empty());
  EXPECT_EQ(m.qcd.style, QuantizationStyle::kScalarExpounded);
  EXPECT_EQ(m.qcd.steps.size(), static_cast<size_t>(3 * levels + 1));
  EXPECT_TRUE(m.qcc.empty());
  EXPECT_TRUE(m.rgn.empty());
  EXPECT_EQ(m.tlm.size(), static_cast<size_t>(parts)) << "TLM names every tile-part";
  ASSERT_EQ(cs.tiles.size(), 1u);
  ASSERT_EQ(cs.tiles[0].parts.size(), static_cast<size_t>(parts));
  for (size_t i = 0; i < cs.tiles[0].parts.size(); ++i) {
    EXPECT_EQ(cs.tiles[0].parts[i].num_parts, parts);
    EXPECT_EQ(m.tlm[i].length, cs.tiles[0].parts[i].psot);
  }
}

// opj_decompress reads the stream without error, and its image is close to ours.
void expect_opj_decodes(const std::vector<uint8_t>& stream, const Image& original, const std::string& name) {
  ASSERT_TRUE(testing::have_program("opj_decompress")) << "opj_decompress is not installed (tools/quickstart.sh)";
  const fs::path dir = fs::temp_directory_path() / ("mallat_profiles_" + name);
  fs::create_directories(dir);
  const fs::path in = dir / "frame.j2c", out = dir / "frame.ppm";
  std::ofstream(in, std::ios::binary).write(reinterpret_cast<const char*>(stream.data()),
                                            static_cast<std::streamsize>(stream.size()));
  const std::string command = "opj_decompress -i '" + in.string() + "' -o '" + out.string() + "'";
  ASSERT_EQ(testing::run_command(command, dir / "log.txt"), 0) << command;
  auto decoded = io::read_image(out);
  ASSERT_TRUE(decoded.ok()) << decoded.status().to_string();
  auto cmp = compare_images(original, *decoded);
  ASSERT_TRUE(cmp.ok()) << cmp.status().to_string();
  EXPECT_GT(cmp->overall.psnr, 20.0) << name;
  fs::remove_all(dir);
}

TEST(CinemaProfiles, TwoK24MarkersLimitsAndOpenJpeg) {
  const Image frame = generated_image(2048, 1080, 3, 12, false, 3);
  auto stream = encode_with(frame, cinema(ProfileKind::kCinema2K, 24));
  ASSERT_TRUE(stream.ok()) << stream.status().to_string();
  auto cs = parse_codestream(*stream);
  ASSERT_TRUE(cs.ok()) << cs.status().to_string();
  expect_cinema_markers(*cs, 0x0003, 5, 3);
  EXPECT_TRUE(cs->main.poc.empty()) << "no POC in 2K";
  EXPECT_LE(stream->size(), 1302083u);
  EXPECT_GT(stream->size(), 1302083u * 99 / 100) << "the limit binds on this frame";
  for (uint64_t b : component_bytes(*cs)) EXPECT_LE(b, 1041666u);
  expect_opj_decodes(*stream, frame, "2k24");
}

TEST(CinemaProfiles, TwoK48ComponentCapBindsWhereOneComponentTakesAll) {
  const Image frame = grey_frame(2048, 1080);
  auto stream = encode_with(frame, cinema(ProfileKind::kCinema2K, 48));
  ASSERT_TRUE(stream.ok()) << stream.status().to_string();
  auto cs = parse_codestream(*stream);
  ASSERT_TRUE(cs.ok()) << cs.status().to_string();
  expect_cinema_markers(*cs, 0x0003, 5, 3);
  EXPECT_LE(stream->size(), 651041u);
  const std::vector<uint64_t> bytes = component_bytes(*cs);
  for (uint64_t b : bytes) EXPECT_LE(b, 520833u);
  // Y stops at its cap, not at the frame's: the frame keeps room it cannot use.
  EXPECT_GT(bytes[0], 520833u * 99 / 100);
  EXPECT_LT(stream->size(), 651041u * 95 / 100);
  expect_opj_decodes(*stream, frame, "2k48");
}

TEST(CinemaProfiles, FourKMarkersPocTilePartsAndOpenJpeg) {
  const Image frame = generated_image(4096, 2160, 3, 12, false, 4);
  auto stream = encode_with(frame, cinema(ProfileKind::kCinema4K, 24));
  ASSERT_TRUE(stream.ok()) << stream.status().to_string();
  auto cs = parse_codestream(*stream);
  ASSERT_TRUE(cs.ok()) << cs.status().to_string();
  expect_cinema_markers(*cs, 0x0004, 6, 6);
  // Resolutions 0..5 of each component, then resolution 6 of each: a 2K
  // decoder stops after the first three tile-parts.
  const std::vector<ProgressionChange> poc = {{0, 0, 1, 6, 3, ProgressionOrder::kCPRL},
                                              {6, 0, 1, 7, 3, ProgressionOrder::kCPRL}};
  EXPECT_EQ(cs->main.poc, poc);
  EXPECT_LE(stream->size(), 1302083u);
  EXPECT_GT(stream->size(), 1302083u * 99 / 100);
  for (uint64_t b : component_bytes(*cs)) EXPECT_LE(b, 1041666u);
  expect_opj_decodes(*stream, frame, "4k24");
}

TEST(ImfProfiles, ReversibleLosslessAndSingleTileLossy) {
  Profile p;
  p.kind = ProfileKind::kImf2KR;
  p.main_level = 4;
  p.sub_level = 2;
  const Image frame = generated_image(640, 360, 3, 10, false, 6);
  auto stream = encode_with(frame, p);
  ASSERT_TRUE(stream.ok()) << stream.status().to_string();
  auto cs = parse_codestream(*stream);
  ASSERT_TRUE(cs.ok()) << cs.status().to_string();
  EXPECT_EQ(cs->main.siz.rsiz, 0x0724);
  const ComponentCoding& cc = cs->main.cod.component;
  EXPECT_TRUE(cc.reversible);
  EXPECT_EQ(cc.xcb, 5);
  EXPECT_EQ(cc.levels, 5);
  EXPECT_EQ(cc.precinct_exponents.front(), (std::array<uint8_t, 2>{7, 7}));
  EXPECT_EQ(cs->main.cod.order, ProgressionOrder::kCPRL);
  EXPECT_EQ(cs->tiles[0].parts.size(), 3u);
  EXPECT_EQ(cs->main.tlm.size(), 3u);
  auto decoded = decode(*stream, {});
  ASSERT_TRUE(decoded.ok());
  auto cmp = compare_images(frame, *decoded);
  ASSERT_TRUE(cmp.ok());
  EXPECT_EQ(cmp->overall.peak_error, 0) << "5/3: lossless";

  // IMF 4K at 24 fps, sub-level 1 (200 Mbit/s): at most 1,041,666 bytes a frame.
  p.kind = ProfileKind::kImf4K;
  p.main_level = 2;
  p.sub_level = 1;
  p.frame_rate = 24;
  const Image big = generated_image(1024, 1024, 3, 12, false, 7);
  stream = encode_with(big, p);
  ASSERT_TRUE(stream.ok()) << stream.status().to_string();
  cs = parse_codestream(*stream);
  ASSERT_TRUE(cs.ok());
  EXPECT_EQ(cs->main.siz.rsiz, 0x0512);
  EXPECT_FALSE(cs->main.cod.component.reversible);
  EXPECT_LE(stream->size(), 200u * 1000 * 1000 / 8 / 24);
  EXPECT_GT(stream->size(), 200u * 1000 * 1000 / 8 / 24 * 99 / 100);
  expect_opj_decodes(*stream, big, "imf4k");
}

// The error names the profile and its rule, and what the input or options have.
void expect_refused(const Image& image, const EncodeOptions& options, const std::string& rule,
                    const std::string& instead) {
  auto stream = encode(image, options);
  ASSERT_FALSE(stream.ok());
  const std::string m = stream.status().message();
  EXPECT_NE(m.find(rule), std::string::npos) << m;
  EXPECT_NE(m.find(instead), std::string::npos) << m;
}

TEST(Profiles, RefusedInputsAndOptions) {
  const Image small = generated_image(64, 32, 3, 12, false);
  const EncodeOptions c2k = profile_options(cinema(ProfileKind::kCinema2K, 24), {});
  expect_refused(generated_image(64, 32, 3, 8, false), c2k, "-cinema2K 24 (Rsiz 0x0003",
                 "component 0 has 8-bit unsigned samples");
  expect_refused(generated_image(2049, 8, 3, 12, false), c2k, "an image of at most 2048x1080",
                 "the image is 2049x8");
  expect_refused(generated_image(64, 32, 2, 12, false), c2k, "requires 3 components", "the image has 2");
  expect_refused(small, profile_options(cinema(ProfileKind::kCinema4K, 48), {}), "24 frames a second", "got 48");
  EncodeOptions o = c2k;
  o.xcb = 6;
  expect_refused(small, o, "32x32 code-blocks", "-b gives 64x32");
  o = c2k;
  o.resolutions = 7;
  o.resolutions_explicit = true;
  expect_refused(small, o, "1..5 decomposition levels", "-n 7");
  o = c2k;
  o.precincts = {{8, 8}};
  expect_refused(small, o, "128x128 at the lowest resolution", "-c");
  o = c2k;
  o.mct = 0;
  expect_refused(small, o, "(ICT)", "-mct 0");
  o = c2k;
  o.max_file_bytes = 2000000;
  expect_refused(small, o, "at most 1302083 bytes a frame", "allow 2000000");
  Profile imf;
  imf.kind = ProfileKind::kImf8KR;
  imf.main_level = 1;
  imf.sub_level = 2;
  expect_refused(small, profile_options(imf, {}), "sub-level of at most 1 at main level 1", "got 2");
  imf.sub_level = 0;
  o = profile_options(imf, {});
  o.tile_width = o.tile_height = 16;
  expect_refused(small, o, "square tiles of 1024, 2048 or 4096", "16x16 tiles");
  o = profile_options(imf, {});
  o.reversible = false;
  expect_refused(small, o, "reversible 5/3", "-I");
}

TEST(Profiles, RsizDescribed) {
  EXPECT_EQ(describe_rsiz(0x0003), "2K digital cinema (Rsiz 0x0003)");
  EXPECT_EQ(describe_rsiz(0x0004), "4K digital cinema (Rsiz 0x0004)");
  EXPECT_EQ(describe_rsiz(0x0825), "IMF 4K_R, main level 5, sub-level 2 (Rsiz 0x0825)");
  EXPECT_EQ(describe_rsiz(0x4000), "no profile restrictions, HT capabilities (15444-15) (Rsiz 0x4000)");
  Profile p;
  p.kind = ProfileKind::kImf8K;
  p.main_level = 11;
  p.sub_level = 9;
  EXPECT_EQ(profile_rsiz(p), 0x069B);
}

}  // namespace
}  // namespace mallat::codec
