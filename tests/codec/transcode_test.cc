// codec::transcode (codec/api/transcode.h): the code-blocks recoded by the
// other block coder, the coefficients untouched. Part 1 -> Part 1 gives the
// input back (byte for byte for our one-layer lossless encode), Part 1 ->
// HT -> Part 1 decodes to the same samples layer by layer, HT conformance
// streams to Part 1 and back decode to the HT decode's samples; the main
// header says what the target needs (COD/COC style, CAP, Rsiz) and the
// markers, tiles and container of the input are kept.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codec/codec.h"
#include "codec/codestream/codestream_reader.h"
#include "codec/jp2/jp2_boxes.h"
#include "io/file.h"
#include "io/image_io.h"
#include "tests/codec/codec_test_util.h"
#include "tests/testdata.h"

namespace mallat::codec {
namespace {

namespace fs = std::filesystem;
using mallat::codec::testing::files_with_extension;

Image bretagne() {
  auto image = io::read_image(mallat::testing::testdata_dir() / "images/Bretagne1.ppm");
  EXPECT_TRUE(image.ok()) << image.status().to_string();
  return image.ok() ? std::move(*image) : Image{};
}

std::vector<uint8_t> transcoded(std::span<const uint8_t> in, BlockCoder target, TranscodeReport* report = nullptr,
                                Container container = Container::kUnknown) {
  TranscodeOptions options;
  options.target = target;
  options.container = container;
  options.threads = 2;
  auto out = transcode(in, options, report);
  EXPECT_TRUE(out.ok()) << out.status().to_string();
  return out.ok() ? std::move(*out) : std::vector<uint8_t>{};
}

Image decoded(std::span<const uint8_t> bytes, int layers = 0) {
  DecodeOptions options;
  options.layers = layers;
  DecodeReport report;
  auto image = decode(bytes, options, &report);
  EXPECT_TRUE(image.ok()) << image.status().to_string();
  return image.ok() ? std::move(*image) : Image{};
}

// Every component's samples equal, or the first difference named.
void expect_same_samples(const Image& a, const Image& b, const std::string& what) {
  ASSERT_EQ(a.num_components(), b.num_components()) << what;
  for (int c = 0; c < a.num_components(); ++c) {
    ASSERT_EQ(a.components[c].samples.size(), b.components[c].samples.size()) << what << " component " << c;
    EXPECT_TRUE(a.components[c].samples == b.components[c].samples) << what << " component " << c;
  }
}

// What the encoder writes under each set of options, and the layers to
// compare: lossless and lossy, several layers, tiles, precincts, every
// progression order, mode switches, SOP/EPH, PPM/PPT, TLM/PLT.
struct Case {
  std::string name;
  EncodeOptions options;
};

std::vector<Case> cases() {
  using Rate = EncodeOptions::RateKind;
  using Packed = EncodeOptions::PackedHeaders;
  std::vector<Case> out;
  out.push_back({"lossless", {}});
  Case layered{"5/3 three layers, tiles, precincts, RPCL, SOP, EPH", {}};
  layered.options.rate_kind = Rate::kRatio;
  layered.options.rate_values = {40, 20, 10};
  layered.options.tile_width = layered.options.tile_height = 256;
  layered.options.precincts = {{6, 6}};
  layered.options.order = ProgressionOrder::kRPCL;
  layered.options.sop = layered.options.eph = true;
  out.push_back(layered);
  Case lossy{"9/7 two layers, CPRL, TLM, PLT", {}};
  lossy.options.reversible = false;
  lossy.options.rate_kind = Rate::kRatio;
  lossy.options.rate_values = {30, 10};
  lossy.options.order = ProgressionOrder::kCPRL;
  lossy.options.tlm = lossy.options.plt = true;
  out.push_back(lossy);
  Case modes{"9/7, BYPASS + TERMALL + VSC + ERTERM, 32x32 blocks, PCRL, PPM", {}};
  modes.options.reversible = false;
  modes.options.rate_kind = Rate::kPsnr;
  modes.options.rate_values = {35, 45};
  modes.options.style = CodeBlockStyle::from_byte(1 | 4 | 8 | 16);
  modes.options.xcb = modes.options.ycb = 5;
  modes.options.order = ProgressionOrder::kPCRL;
  modes.options.packed_headers = Packed::kPpm;
  out.push_back(modes);
  Case tiles{"lossless RLCP, tiles 300x200, PPT, RESET + SEGMARK", {}};
  tiles.options.tile_width = 300;
  tiles.options.tile_height = 200;
  tiles.options.order = ProgressionOrder::kRLCP;
  tiles.options.packed_headers = Packed::kPpt;
  tiles.options.style = CodeBlockStyle::from_byte(2 | 32);
  out.push_back(tiles);
  return out;
}

TEST(Transcode, Part1ToPart1GivesOurLosslessEncodeBack) {
  MALLAT_REQUIRE_TESTDATA("images/Bretagne1.ppm");
  auto in = encode(bretagne(), EncodeOptions{});
  ASSERT_TRUE(in.ok());
  EXPECT_TRUE(transcoded(*in, BlockCoder::kPart1) == *in);
}

// Part 1 -> Part 1 and Part 1 -> HT -> Part 1 keep every layer's samples;
// the HT stream decodes to the full decode's samples (one HT set per
// block, in the layer that first included it).
TEST(Transcode, EncodesKeepTheirSamplesBothWays) {
  MALLAT_REQUIRE_TESTDATA("images/Bretagne1.ppm");
  const Image image = bretagne();
  for (const Case& c : cases()) {
    auto in = encode(image, c.options);
    ASSERT_TRUE(in.ok()) << c.name << ": " << in.status().to_string();
    const std::vector<uint8_t> same = transcoded(*in, BlockCoder::kPart1);
    const std::vector<uint8_t> ht = transcoded(*in, BlockCoder::kHt);
    const std::vector<uint8_t> back = transcoded(ht, BlockCoder::kPart1);
    const int layers = c.options.rate_kind == EncodeOptions::RateKind::kNone
                           ? 1
                           : static_cast<int>(c.options.rate_values.size());
    for (int l = 1; l <= layers; ++l) {
      const Image want = decoded(*in, l);
      expect_same_samples(want, decoded(same, l), c.name + ": Part 1 -> Part 1, layer " + std::to_string(l));
    }
    const Image want = decoded(*in);
    expect_same_samples(want, decoded(ht), c.name + ": as HT");
    expect_same_samples(want, decoded(back), c.name + ": HT -> Part 1");
    // A lossless one-layer stream comes back byte for byte, unless it had
    // Part 1 mode switches other than VSC, which HT blocks cannot carry.
    if (c.options.rate_kind == EncodeOptions::RateKind::kNone && (c.options.style.to_byte() & ~8) == 0) {
      EXPECT_TRUE(back == *in) << c.name;
    }
  }
}

TEST(Transcode, HeaderSaysWhichCoder) {
  MALLAT_REQUIRE_TESTDATA("images/Bretagne1.ppm");
  EncodeOptions options;
  options.reversible = false;
  options.style = CodeBlockStyle::from_byte(8 | 1);  // VSC + BYPASS
  auto in = encode(bretagne(), options);
  ASSERT_TRUE(in.ok());
  const std::vector<uint8_t> ht = transcoded(*in, BlockCoder::kHt);
  auto h = parse_main_header(ht);
  ASSERT_TRUE(h.ok()) << h.status().to_string();
  // 15444-15 A.2, A.3: HT blocks keep VSC only, Rsiz bit 14, CAP part 15.
  EXPECT_EQ(h->cod.component.style.to_byte(), 64 | 8);
  EXPECT_TRUE(h->siz.rsiz & kRsizCapabilities);
  ASSERT_TRUE(h->cap.part(15).has_value());
  const HtCapabilities cap = HtCapabilities::from_ccap15(*h->cap.part(15));
  EXPECT_TRUE(cap.irreversible);
  EXPECT_EQ(cap.blocks, HtCapabilities::Blocks::kHtOnly);
  EXPECT_EQ(*h->cap.part(15), ht_capabilities_of(*h).to_ccap15());
  auto p1 = parse_main_header(transcoded(ht, BlockCoder::kPart1));
  ASSERT_TRUE(p1.ok()) << p1.status().to_string();
  EXPECT_EQ(p1->cod.component.style.to_byte(), 8);
  EXPECT_FALSE(p1->siz.rsiz & kRsizCapabilities);
  EXPECT_TRUE(p1->cap.empty());
}

TEST(Transcode, MarkersOfTheInputAreWrittenAgain) {
  MALLAT_REQUIRE_TESTDATA("images/Bretagne1.ppm");
  EncodeOptions options;
  options.tlm = options.plt = true;
  options.tile_width = options.tile_height = 256;
  options.tile_parts = TilePartDivision::kResolution;
  auto in = encode(bretagne(), options);
  ASSERT_TRUE(in.ok());
  auto cs = parse_codestream(transcoded(*in, BlockCoder::kHt));
  ASSERT_TRUE(cs.ok()) << cs.status().to_string();
  EXPECT_EQ(cs->main.tlm.size(), cs->tiles.size());  // one tile-part per tile, each in TLM
  for (const Tile& t : cs->tiles) {
    ASSERT_EQ(t.parts.size(), 1u) << t.index;
    EXPECT_FALSE(t.parts[0].plt.empty()) << t.index;
  }
}

// JP2 files keep their boxes (file1.jp2 has an xml box) and their colour;
// the brand follows the container asked for (15444-15 Annex D).
TEST(Transcode, Jp2BoxesAreKept) {
  MALLAT_REQUIRE_TESTDATA("conformance/file1.jp2");
  auto in = io::read_file(mallat::testing::testdata_dir() / "conformance/file1.jp2");
  ASSERT_TRUE(in.ok());
  const std::vector<uint8_t> jph = transcoded(*in, BlockCoder::kHt);
  auto before = parse_jp2(*in), after = parse_jp2(jph);
  ASSERT_TRUE(before.ok() && after.ok());
  EXPECT_EQ(after->brand, box::kBrandJph);
  EXPECT_EQ(after->warnings, before->warnings);  // the same boxes skipped by a reader
  EXPECT_EQ(after->colour.size(), before->colour.size());
  EXPECT_EQ(in->size() - before->codestream_length, jph.size() - after->codestream_length);
  expect_same_samples(decoded(*in), decoded(jph), "file1.jp2 as JPH");
  auto jp2 = parse_jp2(transcoded(jph, BlockCoder::kPart1));
  ASSERT_TRUE(jp2.ok());
  EXPECT_EQ(jp2->brand, box::kBrandJp2);
  // A codestream asked to become a JPH file gets the encoder's JP2 header.
  auto stream = find_codestream(*in);
  ASSERT_TRUE(stream.ok());
  auto boxed = parse_jp2(transcoded(*stream, BlockCoder::kHt, nullptr, Container::kJph));
  ASSERT_TRUE(boxed.ok()) << boxed.status().to_string();
  EXPECT_EQ(boxed->brand, box::kBrandJph);
}

TEST(Transcode, ConformanceStreamsKeepTheirSamples) {
  MALLAT_REQUIRE_TESTDATA("conformance/p0_01.j2k");
  for (const fs::path& file : files_with_extension(mallat::testing::testdata_dir() / "conformance", ".j2k")) {
    auto in = io::read_file(file);
    ASSERT_TRUE(in.ok());
    expect_same_samples(decoded(*in), decoded(transcoded(*in, BlockCoder::kPart1)), file.filename().string());
  }
}

// HT streams, several of whose blocks end inside a bit-plane (lossy), to
// Part 1 and back: the same samples each way.
TEST(Transcode, HtConformanceStreamsKeepTheirSamples) {
  MALLAT_REQUIRE_TESTDATA("conformance/htj2k/ds0_ht_01_b11.j2k");
  int64_t mid_plane = 0;
  for (const fs::path& file : files_with_extension(mallat::testing::testdata_dir() / "conformance/htj2k", ".j2k")) {
    auto in = io::read_file(file);
    ASSERT_TRUE(in.ok());
    TranscodeReport report;
    const std::vector<uint8_t> part1 = transcoded(*in, BlockCoder::kPart1, &report);
    mid_plane += report.mid_plane_code_blocks;
    const Image want = decoded(*in);
    expect_same_samples(want, decoded(part1), file.filename().string() + " as Part 1");
    expect_same_samples(want, decoded(transcoded(part1, BlockCoder::kHt)), file.filename().string() + " and back");
  }
  EXPECT_GT(mid_plane, 0);  // the rule for blocks ending inside a plane was exercised
}

TEST(Transcode, DamagedInputIsTranscodedAsFarAsItGoes) {
  MALLAT_REQUIRE_TESTDATA("images/Bretagne1.ppm");
  auto in = encode(bretagne(), EncodeOptions{});
  ASSERT_TRUE(in.ok());
  const std::vector<uint8_t> cut(in->begin(), in->begin() + static_cast<ptrdiff_t>(in->size() / 2));
  TranscodeReport report;
  const std::vector<uint8_t> ht = transcoded(cut, BlockCoder::kHt, &report);
  EXPECT_FALSE(report.warnings.empty());
  expect_same_samples(decoded(cut), decoded(ht), "a stream cut in half");
  const std::vector<uint8_t> junk = {0x12, 0x34, 0x56};
  auto refused = transcode(junk, TranscodeOptions{});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("neither a JPEG 2000 codestream nor a JP2 file"), std::string::npos);
}

}  // namespace
}  // namespace mallat::codec
