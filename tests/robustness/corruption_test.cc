// Damaged codestreams. Valid streams truncated at many
// points, with bytes flipped (fixed seed) and with marker segment lengths
// that lie: the decoder never crashes (the sanitizer job runs this too),
// finishes quickly, and where only packet data is lost it returns the image
// as far as it is intact, with a warning.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <random>
#include <string>

#include "codec/codec.h"
#include "codec/codestream/codestream_reader.h"
#include "common/metrics.h"
#include "io/image_io.h"
#include "tests/testdata.h"

namespace mallat::codec {
namespace {

std::vector<uint8_t> read(const std::string& sub) {
  std::ifstream in(testing::testdata_dir() / sub, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), {});
}

// One decode of damaged data: any outcome but a crash, within a time bound.
Result<Image> decode_damaged(const std::vector<uint8_t>& bytes, DecodeReport* report = nullptr,
                             bool strict = false) {
  DecodeOptions options;
  options.threads = 1;
  options.strict = strict;
  // A flipped SIZ can ask for a huge image; the limit keeps that quick.
  options.max_memory = uint64_t{256} << 20;
  const auto start = std::chrono::steady_clock::now();
  Result<Image> image = decode(bytes, options, report);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 2.0) << bytes.size() << " bytes";
  return image;
}

// Streams the decoder reads today: 1 to 6 layers, one tile, 5/3.
const char* const kStreams[] = {"p0_01.j2k", "p0_02.j2k", "p0_16.j2k", "p1_01.j2k"};

TEST(Corruption, TruncatedStreams) {
  for (const char* name : kStreams) {
    MALLAT_REQUIRE_TESTDATA(std::string("conformance/") + name);
    const std::vector<uint8_t> full = read(std::string("conformance/") + name);
    auto cs = parse_codestream(full);
    ASSERT_TRUE(cs.ok()) << name;
    const size_t data_start = cs->tiles[0].parts[0].data_offset;
    for (size_t cut = 0; cut < full.size(); cut += std::max<size_t>(1, full.size() / 97)) {
      const std::vector<uint8_t> part(full.begin(), full.begin() + cut);
      DecodeReport report;
      Result<Image> image = decode_damaged(part, &report);
      if (cut > data_start) {
        // Only packet data is missing: an image, and a warning saying so.
        EXPECT_TRUE(image.ok()) << name << " cut at " << cut << ": " << image.status().message();
        EXPECT_FALSE(report.warnings.empty()) << name << " cut at " << cut;
      }
    }
  }
}

TEST(Corruption, TruncatedLayeredStreamKeepsWhatIsIntact) {
  // p0_02 has 6 quality layers: losing the last quarter of the packet data
  // still leaves an image much closer to the reference than a blank one.
  MALLAT_REQUIRE_TESTDATA("conformance/p0_02.j2k");
  const std::vector<uint8_t> full = read("conformance/p0_02.j2k");
  auto reference = io::read_image(testing::testdata_dir() / "conformance/reference/c1p0_02_0.pgx");
  ASSERT_TRUE(reference.ok()) << reference.status().message();
  const std::vector<uint8_t> part(full.begin(), full.begin() + full.size() * 3 / 4);
  DecodeReport report;
  Result<Image> image = decode_damaged(part, &report);
  ASSERT_TRUE(image.ok()) << image.status().message();
  EXPECT_FALSE(report.warnings.empty());
  Image blank = *reference;
  for (auto& s : blank.components[0].samples) s = 1 << (blank.components[0].precision - 1);
  auto damaged = compare_images(*reference, *image);
  auto empty = compare_images(*reference, blank);
  ASSERT_TRUE(damaged.ok() && empty.ok());
  EXPECT_LT(damaged->overall.mse * 10, empty->overall.mse)
      << "MSE " << damaged->overall.mse << " against a blank image's " << empty->overall.mse;
}

TEST(Corruption, FlippedBytes) {
  std::mt19937 rng(20261122);
  for (const char* name : kStreams) {
    MALLAT_REQUIRE_TESTDATA(std::string("conformance/") + name);
    const std::vector<uint8_t> full = read(std::string("conformance/") + name);
    for (int trial = 0; trial < 150; ++trial) {
      std::vector<uint8_t> bytes = full;
      const int flips = 1 + static_cast<int>(rng() % 8);
      for (int f = 0; f < flips; ++f) bytes[rng() % bytes.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
      (void)decode_damaged(bytes);
    }
  }
}

// Marker segments whose length field lies: each segment of the main header
// and the first tile-part header in turn gets a length that is 0, 1, too
// short by one, too long by one, and 0xFFFF.
TEST(Corruption, LyingMarkerLengths) {
  for (const char* name : kStreams) {
    MALLAT_REQUIRE_TESTDATA(std::string("conformance/") + name);
    const std::vector<uint8_t> full = read(std::string("conformance/") + name);
    auto cs = parse_codestream(full);
    ASSERT_TRUE(cs.ok()) << name;
    const size_t header_end = cs->tiles[0].parts[0].header_end;
    // Walk the segments: marker (2 bytes), then a 2-byte length (SOC has none).
    for (size_t pos = 2; pos + 4 <= header_end;) {
      const uint16_t length = static_cast<uint16_t>(full[pos + 2] << 8 | full[pos + 3]);
      const bool sot = full[pos + 1] == 0x90;
      for (int lie : {0, 1, length - 1, length + 1, 0xFFFF}) {
        std::vector<uint8_t> bytes = full;
        bytes[pos + 2] = static_cast<uint8_t>(lie >> 8);
        bytes[pos + 3] = static_cast<uint8_t>(lie);
        (void)decode_damaged(bytes);
        if (sot) {
          // Psot, the tile-part length, lies too.
          for (uint32_t psot : {0u, 1u, 14u, 0xFFFFFFFFu}) {
            std::vector<uint8_t> b = full;
            for (int k = 0; k < 4; ++k) b[pos + 6 + k] = static_cast<uint8_t>(psot >> (24 - 8 * k));
            (void)decode_damaged(b);
          }
        }
      }
      pos += 2 + length;
    }
  }
}

// Messages about packet data give codestream offsets, and a
// JP2 file's messages say where its codestream starts in the file.
size_t number_after(const std::string& text, const std::string& prefix) {
  const size_t at = text.find(prefix);
  if (at == std::string::npos) return SIZE_MAX;
  return std::stoul(text.substr(at + prefix.size()));
}

TEST(Corruption, MessagesGiveByteOffsets) {
  MALLAT_REQUIRE_TESTDATA("conformance/p0_01.j2k");
  const std::vector<uint8_t> full = read("conformance/p0_01.j2k");
  auto cs = parse_codestream(full);
  ASSERT_TRUE(cs.ok());
  const size_t data_start = cs->tiles[0].parts[0].data_offset;
  const size_t cut = data_start + (full.size() - data_start) / 2;
  DecodeReport report;
  ASSERT_TRUE(decode_damaged(std::vector<uint8_t>(full.begin(), full.begin() + cut), &report).ok());
  std::string about_packet;
  for (const std::string& w : report.warnings)
    if (w.find("packet ") != std::string::npos) about_packet = w;
  ASSERT_FALSE(about_packet.empty()) << report.warnings.size() << " warnings, none about a packet";
  const size_t packet = number_after(about_packet, " at byte ");
  EXPECT_GE(packet, data_start) << about_packet;
  EXPECT_LE(packet, cut) << about_packet;

  MALLAT_REQUIRE_TESTDATA("conformance/file1.jp2");
  const std::vector<uint8_t> jp2 = read("conformance/file1.jp2");
  DecodeReport jp2_report;
  ASSERT_TRUE(decode_damaged(std::vector<uint8_t>(jp2.begin(), jp2.end() - jp2.size() / 3), &jp2_report).ok());
  ASSERT_FALSE(jp2_report.warnings.empty());
  const std::string& w = jp2_report.warnings.back();
  const size_t soc = number_after(w, "codestream starting at byte ");
  ASSERT_NE(soc, SIZE_MAX) << w;
  ASSERT_LT(soc + 1, jp2.size()) << w;
  EXPECT_EQ(jp2[soc], 0xFF) << w;
  EXPECT_EQ(jp2[soc + 1], 0x4F) << w;  // SOC

  // A packet header that gives a code-block more passes than its bit-planes
  // allow (a file that crashed another decoder): under --strict (without
  // it the passes are ignored, docs/TOLERANCE.md) the error names the tile,
  // component, resolution and code-block, and where its data starts.
  MALLAT_REQUIRE_TESTDATA("malformed/1336.pdf.asan.47.376.jp2");
  const std::vector<uint8_t> bad = read("malformed/1336.pdf.asan.47.376.jp2");
  Result<Image> image = decode_damaged(bad, nullptr, /*strict=*/true);
  ASSERT_FALSE(image.ok());
  const std::string& m = image.status().message();
  const size_t start = number_after(m, "codestream starting at byte ");
  ASSERT_NE(start, SIZE_MAX) << m;
  ASSERT_LT(start + 1, bad.size()) << m;
  EXPECT_EQ(bad[start + 1], 0x4F) << m;
  EXPECT_NE(m.find("tile 0: component 0 resolution "), std::string::npos) << m;
  const size_t data = number_after(m, "data from byte ");
  ASSERT_NE(data, SIZE_MAX) << m;
  EXPECT_LT(start + data, bad.size()) << m;
}

}  // namespace
}  // namespace mallat::codec
