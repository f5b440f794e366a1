// The encoder's optional features: progression changes (POC, A.6.6),
// tile-parts, packed packet headers (PPM, PPT), ROI max-shift and JP2
// channel definitions / ICC profiles. Each file is decoded by mallat and by
// opj_decompress; both must give the same samples, and the original ones
// where the coding is lossless. The codestream is also parsed to see that
// the feature is really there.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "codec/codec.h"
#include "codec/codestream/codestream_reader.h"
#include "codec/jp2/jp2_boxes.h"
#include "codec/jp2/jp2_colour.h"
#include "io/file.h"
#include "io/image_io.h"
#include "tests/interop/generated.h"
#include "tests/interop/opj.h"
#include "tests/testdata.h"

namespace mallat {
namespace {

namespace fs = std::filesystem;
using codec::EncodeOptions;
using codec::ProgressionOrder;
using codec::TilePartDivision;
using testing::generated_image;

void expect_same_samples(const Image& a, const Image& b, const std::string& what) {
  ASSERT_EQ(a.num_components(), b.num_components()) << what;
  for (int c = 0; c < a.num_components(); ++c) {
    ASSERT_EQ(a.components[c].width, b.components[c].width) << what << " component " << c;
    ASSERT_EQ(a.components[c].height, b.components[c].height) << what << " component " << c;
    ASSERT_TRUE(a.components[c].samples == b.components[c].samples) << what << " component " << c << " differs";
  }
}

// Encodes, decodes with mallat and with opj_decompress (to PGX, one file per
// component), and expects both decodes to agree, and to equal the image when
// `lossless`. Returns the encoded bytes.
std::vector<uint8_t> check_both_decoders(const Image& image, const EncodeOptions& options, bool lossless,
                                         const std::string& name) {
  EXPECT_TRUE(testing::have_program("opj_decompress")) << "opj_decompress is not installed";
  auto bytes = codec::encode(image, options);
  EXPECT_TRUE(bytes.ok()) << name << ": " << bytes.status().to_string();
  if (!bytes.ok()) return {};
  auto ours = codec::decode(*bytes, {});
  EXPECT_TRUE(ours.ok()) << name << ": " << ours.status().to_string();
  if (!ours.ok()) return {};
  if (lossless) expect_same_samples(image, *ours, name + " (mallat round trip)");
  const fs::path dir = testing::make_temp_dir("encfeat");
  const fs::path stream = dir / "x.j2k";
  EXPECT_TRUE(io::write_file_atomically(stream, *bytes).ok());
  const fs::path log = dir / "log.txt";
  EXPECT_EQ(testing::run_command("opj_decompress -i " + stream.string() + " -o " + (dir / "out.pgx").string(), log),
            0) << name << ": opj_decompress failed; see " << log;
  auto theirs = testing::read_pgx_components(dir, "out", image.num_components());
  EXPECT_TRUE(theirs.ok()) << name << ": " << theirs.status().to_string();
  if (theirs.ok()) expect_same_samples(*ours, *theirs, name + " (mallat vs OpenJPEG)");
  fs::remove_all(dir);
  return *bytes;
}

codec::Codestream parsed(const std::vector<uint8_t>& bytes) {
  auto cs = codec::parse_codestream(bytes);
  EXPECT_TRUE(cs.ok()) << cs.status().to_string();
  return cs.ok() ? std::move(*cs) : codec::Codestream{};
}

TEST(EncoderFeatures, ProgressionChangesPerTile) {
  const Image image = generated_image(150, 110, 3, 8, false, 11);
  EncodeOptions o;
  o.tile_width = 80;
  o.tile_height = 64;
  o.resolutions = 5;
  o.rate_kind = EncodeOptions::RateKind::kRatio;
  o.rate_values = {20, 8, 1};
  o.precincts = {{5, 5}};
  // Tile 0: resolutions 0..2 of every component in CPRL for the first
  // layer, then the rest RLCP; tile 3: the lower resolutions only, so the
  // encoder must add a change for what they leave out.
  o.progression_changes[0] = {{0, 0, 1, 3, 3, ProgressionOrder::kCPRL}, {0, 0, 3, 5, 3, ProgressionOrder::kRLCP}};
  o.progression_changes[3] = {{0, 0, 3, 2, 3, ProgressionOrder::kPCRL}};
  const auto bytes = check_both_decoders(image, o, true, "POC");
  const codec::Codestream cs = parsed(bytes);
  ASSERT_EQ(cs.tiles.size(), 4u);
  EXPECT_EQ(cs.tiles[0].overrides.poc, o.progression_changes[0]);
  EXPECT_TRUE(cs.tiles[1].overrides.poc.empty());
  ASSERT_EQ(cs.tiles[3].overrides.poc.size(), 2u);
  EXPECT_EQ(cs.tiles[3].overrides.poc[0], o.progression_changes[3][0]);
  EXPECT_EQ(cs.tiles[3].overrides.poc[1], (codec::ProgressionChange{0, 0, 3, 5, 3, ProgressionOrder::kLRCP}));
  // Lossy 5/3 layers under progression changes: the two decoders agree.
  EncodeOptions lossy = o;
  lossy.rate_values = {40, 20};
  check_both_decoders(image, lossy, false, "POC, lossy layers");
}

TEST(EncoderFeatures, TilePartsWithTlm) {
  const Image image = generated_image(120, 90, 3, 8, false, 12);
  struct Case {
    TilePartDivision division;
    ProgressionOrder order;
    int parts_per_tile;
  };
  // 4 resolutions, 3 layers, 3 components: LRCP divided by layer gives 3
  // tile-parts; RLCP by resolution 4; by layer it changes layer 4 x 3 times;
  // CPRL by component 3.
  const Case cases[] = {{TilePartDivision::kLayer, ProgressionOrder::kLRCP, 3},
                        {TilePartDivision::kResolution, ProgressionOrder::kRLCP, 4},
                        {TilePartDivision::kLayer, ProgressionOrder::kRLCP, 12},
                        {TilePartDivision::kComponent, ProgressionOrder::kCPRL, 3}};
  for (const Case& c : cases) {
    EncodeOptions o;
    o.tile_width = o.tile_height = 64;
    o.resolutions = 4;
    o.rate_kind = EncodeOptions::RateKind::kRatio;
    o.rate_values = {30, 10, 1};
    o.order = c.order;
    o.tile_parts = c.division;
    o.tlm = true;
    o.sop = o.eph = true;
    const std::string name = "tile-parts " + std::to_string(static_cast<int>(c.division)) + " order " +
                             std::to_string(static_cast<int>(c.order));
    const auto bytes = check_both_decoders(image, o, true, name);
    const codec::Codestream cs = parsed(bytes);
    size_t total = 0;
    for (const codec::Tile& t : cs.tiles) {
      ASSERT_EQ(static_cast<int>(t.parts.size()), c.parts_per_tile) << name;
      for (size_t p = 0; p < t.parts.size(); ++p) {
        EXPECT_EQ(t.parts[p].part, static_cast<int>(p)) << name;
        EXPECT_EQ(t.parts[p].num_parts, c.parts_per_tile) << name;
      }
      total += t.parts.size();
    }
    // TLM: one entry per tile-part, in codestream order, each its Psot.
    ASSERT_EQ(cs.main.tlm.size(), total) << name;
    size_t k = 0;
    for (const codec::Tile& t : cs.tiles) {
      for (const codec::TilePartHeader& part : t.parts) {
        EXPECT_EQ(cs.main.tlm[k].tile, t.index) << name;
        EXPECT_EQ(cs.main.tlm[k].length, part.psot) << name;
        ++k;
      }
    }
  }
}

TEST(EncoderFeatures, PackedHeadersInPpmSplitOverSegments) {
  // A natural image, 4x4 code-blocks and eight layers: over 65535 bytes of
  // packet headers, so the PPM needs several segments.
  MALLAT_REQUIRE_TESTDATA("images/Bretagne1.ppm");
  auto read = io::read_image(testing::testdata_dir() / "images/Bretagne1.ppm");
  ASSERT_TRUE(read.ok()) << read.status().to_string();
  const Image& image = *read;
  EncodeOptions o;
  o.xcb = o.ycb = 2;
  o.rate_kind = EncodeOptions::RateKind::kRatio;
  o.rate_values = {80, 40, 20, 10, 7, 5, 3, 1};
  o.packed_headers = EncodeOptions::PackedHeaders::kPpm;
  o.tile_parts = TilePartDivision::kLayer;
  o.eph = o.sop = true;
  const auto bytes = check_both_decoders(image, o, true, "PPM");
  const codec::Codestream cs = parsed(bytes);
  EXPECT_GT(cs.main.ppm.size(), 1u);
  auto per_part = codec::ppm_tile_part_headers(cs.main);
  ASSERT_TRUE(per_part.ok()) << per_part.status().to_string();
  EXPECT_EQ(per_part->size(), 8u);  // one per tile-part
  // With tiles: one Nppm per tile-part of every tile, in codestream order.
  EncodeOptions tiled = o;
  tiled.xcb = tiled.ycb = 5;
  tiled.tile_width = 100;
  tiled.tile_height = 90;
  tiled.tile_parts = TilePartDivision::kNone;
  check_both_decoders(image, tiled, true, "PPM with tiles");
}

TEST(EncoderFeatures, PackedHeadersInPpt) {
  const Image image = generated_image(140, 100, 3, 8, false, 14);
  EncodeOptions o;
  o.tile_width = 70;
  o.tile_height = 50;
  o.rate_kind = EncodeOptions::RateKind::kRatio;
  o.rate_values = {20, 5, 1};
  o.packed_headers = EncodeOptions::PackedHeaders::kPpt;
  o.tile_parts = TilePartDivision::kLayer;
  o.plt = o.eph = true;
  const auto bytes = check_both_decoders(image, o, true, "PPT");
  const codec::Codestream cs = parsed(bytes);
  EXPECT_TRUE(cs.main.ppm.empty());
  for (const codec::Tile& t : cs.tiles) {
    ASSERT_EQ(t.parts.size(), 3u);
    for (const codec::TilePartHeader& part : t.parts) EXPECT_FALSE(part.ppt.empty()) << "tile " << t.index;
  }
}

TEST(EncoderFeatures, RoiMaxShiftWholeComponent) {
  const Image image = generated_image(96, 80, 3, 8, false, 15);
  EncodeOptions o;
  o.roi = {{1, 9}};
  const auto bytes = check_both_decoders(image, o, true, "ROI lossless");
  const codec::Codestream cs = parsed(bytes);
  ASSERT_EQ(cs.main.rgn.size(), 1u);
  EXPECT_EQ(cs.main.rgn[0], (codec::RegionOfInterest{1, 9}));
  // Lossy 5/3 layers: the shifted component comes first in every layer; both
  // decoders undo the shift alike.
  EncodeOptions lossy = o;
  lossy.rate_kind = EncodeOptions::RateKind::kRatio;
  lossy.rate_values = {30, 10};
  check_both_decoders(image, lossy, false, "ROI lossy");
  // Too large a shift for Tier-1's 31 bit-planes is refused.
  EncodeOptions huge = o;
  huge.roi = {{0, 30}};
  EXPECT_FALSE(codec::encode(image, huge).ok());
  EncodeOptions bad = o;
  bad.roi = {{3, 2}};
  EXPECT_FALSE(codec::encode(image, bad).ok());
}

// A JP2 file written by mallat and decoded by opj_decompress to PNG.
Result<Image> opj_decode_jp2(const std::vector<uint8_t>& jp2, const std::string& name) {
  const fs::path dir = testing::make_temp_dir("encfeat_jp2");
  const fs::path file = dir / "x.jp2";
  MALLAT_RETURN_IF_ERROR(io::write_file_atomically(file, jp2));
  const fs::path out = dir / "out.png";
  if (testing::run_command("opj_decompress -i " + file.string() + " -o " + out.string(), dir / "log.txt") != 0)
    return Status(ErrorCode::kInternal, name + ": opj_decompress failed");
  auto image = io::read_image(out);
  fs::remove_all(dir);
  return image;
}

// A lossless JP2 file of `image` (in *file) and its boxes.
Result<codec::Jp2File> encode_jp2(const Image& image, std::vector<uint8_t>* file) {
  EncodeOptions o;
  o.container = codec::Container::kJp2;
  MALLAT_ASSIGN_OR_RETURN(*file, codec::encode(image, o));
  return codec::parse_jp2(*file);
}

TEST(EncoderFeatures, Jp2ChannelDefinitionsForAlpha) {
  MALLAT_REQUIRE_TESTDATA("images/pngsuite");
  for (const char* name : {"basn4a08.png", "basn6a08.png", "basn6a16.png"}) {
    auto image = io::read_image(testing::testdata_dir() / "images/pngsuite" / name);
    ASSERT_TRUE(image.ok()) << image.status().to_string();
    ASSERT_TRUE(image->has_alpha) << name;
    std::vector<uint8_t> file;
    auto jp2 = encode_jp2(*image, &file);
    ASSERT_TRUE(jp2.ok()) << jp2.status().to_string();
    const std::vector<uint8_t>* bytes = &file;
    ASSERT_EQ(jp2->channel_definitions.size(), static_cast<size_t>(image->num_components())) << name;
    EXPECT_EQ(jp2->channel_definitions.back().type, 1) << name << ": the last channel is opacity (I.5.3.6)";
    auto ours = codec::decode(*bytes, {});
    ASSERT_TRUE(ours.ok()) << ours.status().to_string();
    EXPECT_TRUE(ours->has_alpha) << name;
    expect_same_samples(*image, *ours, std::string(name) + " (mallat)");
    auto theirs = opj_decode_jp2(*bytes, name);
    ASSERT_TRUE(theirs.ok()) << theirs.status().to_string();
    EXPECT_TRUE(theirs->has_alpha) << name;
    expect_same_samples(*image, *theirs, std::string(name) + " (OpenJPEG)");
  }
}

TEST(EncoderFeatures, Jp2IccProfileFromTheImage) {
  MALLAT_REQUIRE_TESTDATA("conformance/file8.jp2");
  // file5: a three-component RGB profile; file8: a monochrome one, which
  // opj_decompress applies (grey in, RGB out).
  for (const char* name : {"file5.jp2", "file8.jp2"}) {
    auto original = io::read_file(testing::testdata_dir() / "conformance" / name);
    ASSERT_TRUE(original.ok());
    auto decoded = codec::decode(*original, {});
    ASSERT_TRUE(decoded.ok()) << decoded.status().to_string();
    ASSERT_FALSE(decoded->icc_profile.empty()) << name;
    // Through a PNG, so that the profile comes from io's iCCP reader.
    const fs::path dir = testing::make_temp_dir("encfeat_icc");
    const fs::path png = dir / "x.png";
    ASSERT_TRUE(io::write_image(*decoded, png).ok());
    auto image = io::read_image(png);
    ASSERT_TRUE(image.ok()) << image.status().to_string();
    ASSERT_EQ(image->icc_profile, decoded->icc_profile) << name;
    std::vector<uint8_t> file;
    auto jp2 = encode_jp2(*image, &file);
    ASSERT_TRUE(jp2.ok()) << jp2.status().to_string();
    const std::vector<uint8_t>* bytes = &file;
    ASSERT_FALSE(jp2->colour.empty());
    EXPECT_EQ(jp2->colour[0].method, 2) << name;
    EXPECT_EQ(jp2->colour[0].icc_profile, image->icc_profile) << name;
    // OpenJPEG applies the profile of our file as it does that of the original.
    auto ours = opj_decode_jp2(*bytes, name);
    ASSERT_TRUE(ours.ok()) << ours.status().to_string();
    auto theirs = opj_decode_jp2(*original, name);
    ASSERT_TRUE(theirs.ok()) << theirs.status().to_string();
    expect_same_samples(*theirs, *ours, std::string(name) + " through OpenJPEG's colour management");
    fs::remove_all(dir);
  }
}

}  // namespace
}  // namespace mallat
