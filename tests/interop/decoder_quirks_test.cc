// Encoders' quirks that Part 1 forbids and other decoders accept.
// Each test makes its stream by editing the output of mallat's encoder (or
// a shared conformance file), decodes it tolerantly (one warning per kind)
// and with DecodeOptions::strict (refused, as before), and says what
// opj_decompress (OpenJPEG 2.5) does with the same bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "codec/codec.h"
#include "io/file.h"
#include "io/image_io.h"
#include "tests/interop/opj.h"
#include "tests/testdata.h"

namespace mallat {
namespace {

namespace fs = std::filesystem;

uint32_t be(const std::vector<uint8_t>& b, size_t at, int bytes) {
  uint32_t v = 0;
  for (int i = 0; i < bytes; ++i) v = v << 8 | b[at + i];
  return v;
}
void put_be(std::vector<uint8_t>& b, size_t at, int bytes, uint32_t v) {
  for (int i = bytes - 1; i >= 0; --i, v >>= 8) b[at + i] = static_cast<uint8_t>(v);
}

// Offset of main-header marker `code` (its 0xFF byte) in a raw codestream.
size_t main_marker(const std::vector<uint8_t>& cs, uint32_t code) {
  for (size_t at = 2; at + 4 <= cs.size();) {
    const uint32_t m = be(cs, at, 2);
    if (m == code) return at;
    if (m == 0xFF90) break;
    at += 2 + be(cs, at + 2, 2);
  }
  ADD_FAILURE() << "no marker " << std::hex << code;
  return 0;
}

// A gradient with noise: every subband has coefficients to code.
Image test_image(int width, int height, int components) {
  Image image;
  for (int c = 0; c < components; ++c) {
    Component comp;
    comp.width = width;
    comp.height = height;
    comp.precision = 8;
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) comp.samples.push_back((x * 3 + y * 2 + (x * y * 7 + c * 13) % 23) % 256);
    image.components.push_back(std::move(comp));
  }
  image.color_space = components >= 3 ? ColorSpace::kRgb : ColorSpace::kGray;
  return image;
}

std::vector<uint8_t> encode_lossless(const Image& image, codec::Container container = codec::Container::kCodestream) {
  codec::EncodeOptions options;
  options.container = container;
  auto bytes = codec::encode(image, options);
  EXPECT_TRUE(bytes.ok()) << bytes.status().to_string();
  return bytes.ok() ? *bytes : std::vector<uint8_t>();
}

struct Decoded {
  Result<Image> image;
  std::vector<std::string> warnings;
};
Decoded decode(const std::vector<uint8_t>& bytes, bool strict) {
  codec::DecodeOptions options;
  options.strict = strict;
  codec::DecodeReport report;
  auto image = codec::decode(bytes, options, &report);
  return {std::move(image), report.warnings};
}

// How many warnings contain `text`.
int count_warnings(const std::vector<std::string>& warnings, const std::string& text) {
  return static_cast<int>(std::count_if(warnings.begin(), warnings.end(),
                                        [&](const std::string& w) { return w.find(text) != std::string::npos; }));
}

// opj_decompress's decode of `bytes` (PGX per component), or an error.
Result<Image> opj_decode(const std::vector<uint8_t>& bytes, const std::string& ext, int components) {
  if (!testing::have_program("opj_decompress")) return internal_error("opj_decompress is not installed");
  const fs::path dir = testing::make_temp_dir("quirk");
  const fs::path in = dir / ("in" + ext);
  if (Status s = io::write_file_atomically(in, bytes); !s.ok()) return s;
  if (testing::run_command("opj_decompress -i " + in.string() + " -o " + (dir / "o.pgx").string(), dir / "log") != 0)
    return corrupt_data("opj_decompress refused it");
  auto image = testing::read_pgx_components(dir, "o", components);
  fs::remove_all(dir);
  return image;
}

void expect_same_samples(const Image& a, const Image& b) {
  ASSERT_EQ(a.num_components(), b.num_components());
  for (int c = 0; c < a.num_components(); ++c) {
    ASSERT_EQ(a.components[c].width, b.components[c].width);
    ASSERT_EQ(a.components[c].height, b.components[c].height);
    EXPECT_TRUE(a.components[c].samples == b.components[c].samples) << "component " << c;
  }
}

// A reversible QCD (1 byte per subband) without its finest level's three
// step sizes. Without quantisation the exponents are R_I + log2 gain_b on
// every level, so the derived steps are the ones left out and the decode is
// lossless again. OpenJPEG leaves the missing steps at zero (its QCD
// reader), and its decode of this stream is far off (22.5 dB on a similar
// image); --strict refuses the stream as before.
TEST(DecoderQuirks, MissingStepSizesAreDerived) {
  const Image original = test_image(64, 48, 1);
  std::vector<uint8_t> cs = encode_lossless(original);
  const size_t qcd = main_marker(cs, 0xFF5C);
  const uint32_t length = be(cs, qcd + 2, 2);
  ASSERT_EQ(be(cs, qcd + 4, 1) & 0x1F, 0u) << "expected a reversible QCD";
  ASSERT_EQ(length, 3u + 16u) << "expected 5 levels, 16 step sizes";
  cs.erase(cs.begin() + static_cast<std::ptrdiff_t>(qcd + 2 + length - 3), cs.begin() + static_cast<std::ptrdiff_t>(qcd + 2 + length));
  put_be(cs, qcd + 2, 2, length - 3);

  Decoded tolerant = decode(cs, false);
  ASSERT_TRUE(tolerant.image.ok()) << tolerant.image.status().to_string();
  expect_same_samples(*tolerant.image, original);
  EXPECT_EQ(count_warnings(tolerant.warnings, "1 tile-component(s) whose QCD/QCC lists fewer step sizes"), 1);

  Decoded strict = decode(cs, true);
  ASSERT_FALSE(strict.image.ok());
  EXPECT_NE(strict.image.status().message().find("13 step sizes for 16 subbands"), std::string::npos)
      << strict.image.status().message();
}

// Every step exponent of a reversible QCD lowered by 3: Mb (E-2) drops by 3
// while the packets still say the coded passes and zero bit-planes of the
// real ones, as the broken files of other decoders' bug reports do. Blocks
// get more passes than their bit-planes allow (the passes below bit-plane 0
// are ignored) and some more zero bit-planes than Mb (decoded as zero):
// exactly OpenJPEG's decode, one warning per kind for many code-blocks.
TEST(DecoderQuirks, PassesBelowTheLastBitPlaneAndZeroBitPlanesBeyondMb) {
  const Image original = test_image(64, 48, 1);
  std::vector<uint8_t> cs = encode_lossless(original);
  const size_t qcd = main_marker(cs, 0xFF5C);
  const uint32_t length = be(cs, qcd + 2, 2);
  for (size_t at = qcd + 5; at < qcd + 2 + length; ++at) cs[at] = static_cast<uint8_t>(cs[at] - (3 << 3));

  Decoded tolerant = decode(cs, false);
  ASSERT_TRUE(tolerant.image.ok()) << tolerant.image.status().to_string();
  EXPECT_EQ(count_warnings(tolerant.warnings, "with more coding passes than their bit-planes allow"), 1);
  EXPECT_EQ(count_warnings(tolerant.warnings, "code-block(s) with more zero bit-planes than the subband's Mb"), 1);
  auto opj = opj_decode(cs, ".j2k", 1);
  ASSERT_TRUE(opj.ok()) << opj.status().to_string();
  expect_same_samples(*tolerant.image, *opj);

  Decoded strict = decode(cs, true);
  ASSERT_FALSE(strict.image.ok());
  EXPECT_NE(strict.image.status().message().find("coding passes, more than its"), std::string::npos)
      << strict.image.status().message();
}

// A JP2 file's top-level box `type`: its offset, or 0.
size_t find_box(const std::vector<uint8_t>& f, size_t from, size_t to, uint32_t type) {
  for (size_t at = from; at + 8 <= to;) {
    const uint32_t length = be(f, at, 4);
    if (be(f, at + 4, 4) == type) return at;
    if (length < 8) break;
    at += length;
  }
  return 0;
}
constexpr uint32_t kJp2h = 0x6A703268, kIhdr = 0x69686472, kCmap = 0x636D6170;

// A second ihdr in jp2h: OpenJPEG ignores it with a warning; so do we (the
// first counts). --strict refuses it.
TEST(DecoderQuirks, SecondIhdrIsIgnored) {
  const Image original = test_image(40, 24, 3);
  std::vector<uint8_t> file = encode_lossless(original, codec::Container::kJp2);
  const size_t jp2h = find_box(file, 0, file.size(), kJp2h);
  ASSERT_GT(jp2h, 0u);
  const size_t ihdr = find_box(file, jp2h + 8, jp2h + be(file, jp2h, 4), kIhdr);
  ASSERT_GT(ihdr, 0u);
  std::vector<uint8_t> copy(file.begin() + static_cast<std::ptrdiff_t>(ihdr),
                            file.begin() + static_cast<std::ptrdiff_t>(ihdr + be(file, ihdr, 4)));
  copy[8 + 3] ^= 1;  // a different height: the second must not count
  file.insert(file.begin() + static_cast<std::ptrdiff_t>(ihdr + copy.size()), copy.begin(), copy.end());
  put_be(file, jp2h, 4, be(file, jp2h, 4) + static_cast<uint32_t>(copy.size()));

  Decoded tolerant = decode(file, false);
  ASSERT_TRUE(tolerant.image.ok()) << tolerant.image.status().to_string();
  expect_same_samples(*tolerant.image, original);
  EXPECT_EQ(count_warnings(tolerant.warnings, "ignored: the first counts"), 1);
  auto opj = opj_decode(file, ".jp2", 3);
  ASSERT_TRUE(opj.ok()) << opj.status().to_string();
  expect_same_samples(*tolerant.image, *opj);
  EXPECT_FALSE(decode(file, true).image.ok());
}

// file9.jp2 (a palette image: pclr + cmap) without its cmap box. OpenJPEG
// drops a pclr that has no cmap and writes the indices; so do we, with a
// warning. --strict refuses it.
TEST(DecoderQuirks, PaletteWithoutComponentMappingIsIgnored) {
  MALLAT_REQUIRE_TESTDATA("conformance/file9.jp2");
  auto read = io::read_file(testing::testdata_dir() / "conformance/file9.jp2");
  ASSERT_TRUE(read.ok());
  std::vector<uint8_t> file = *read;
  const size_t jp2h = find_box(file, 0, file.size(), kJp2h);
  ASSERT_GT(jp2h, 0u);
  const size_t cmap = find_box(file, jp2h + 8, jp2h + be(file, jp2h, 4), kCmap);
  ASSERT_GT(cmap, 0u);
  const uint32_t cmap_length = be(file, cmap, 4);
  file.erase(file.begin() + static_cast<std::ptrdiff_t>(cmap), file.begin() + static_cast<std::ptrdiff_t>(cmap + cmap_length));
  put_be(file, jp2h, 4, be(file, jp2h, 4) - cmap_length);

  Decoded tolerant = decode(file, false);
  ASSERT_TRUE(tolerant.image.ok()) << tolerant.image.status().to_string();
  ASSERT_EQ(tolerant.image->num_components(), 1);  // the indices, not the palette's RGB
  EXPECT_EQ(count_warnings(tolerant.warnings, "without cmap: the palette is ignored"), 1);
  auto opj = opj_decode(file, ".jp2", 1);
  ASSERT_TRUE(opj.ok()) << opj.status().to_string();
  expect_same_samples(*tolerant.image, *opj);
  Decoded strict = decode(file, true);
  ASSERT_FALSE(strict.image.ok());
  EXPECT_NE(strict.image.status().message().find("pclr without cmap"), std::string::npos);
}

}  // namespace
}  // namespace mallat
