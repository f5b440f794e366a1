// HTJ2K in the codestream (15444-15 A.2, A.3; 15444-1 A.5.2, A.5.3): CAP and
// CPF read and checked, Ccap^15's fields, what the encoder writes for HT
// (Rsiz bit 14, CAP, the JPH brand), what it refuses, and its rate targets.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "codec/codec.h"
#include "codec/codestream/byte_writer.h"
#include "codec/codestream/capabilities.h"
#include "codec/codestream/codestream_reader.h"
#include "codec/jp2/jp2_boxes.h"
#include "common/metrics.h"
#include "tests/interop/generated.h"

namespace mallat::codec {
namespace {

// A reader over `bytes` (which must outlive it) placed at byte 100 of a file.
ByteReader reader_of(const std::vector<uint8_t>& bytes) { return ByteReader(bytes, 100); }

TEST(Capabilities, CcapFifteenFieldsRoundTrip) {
  HtCapabilities ht;
  ht.blocks = HtCapabilities::Blocks::kHtMixed;
  ht.multiple_ht_sets = true;
  ht.region_of_interest = true;
  ht.irreversible = true;
  ht.magnitude_bits = 14;
  const uint16_t c = ht.to_ccap15();
  EXPECT_EQ(c, 0xC000 | 0x2000 | 0x1000 | 0x20 | 6);
  const HtCapabilities back = HtCapabilities::from_ccap15(c);
  EXPECT_EQ(back.blocks, HtCapabilities::Blocks::kHtMixed);
  EXPECT_TRUE(back.multiple_ht_sets && back.region_of_interest && back.irreversible && !back.heterogeneous);
  EXPECT_EQ(back.magnitude_bits, 14);
  // Table A.3's B: up to 8 is 0, 9..27 is B - 8, from 28 on 13 + B / 4.
  for (int b : {3, 8}) EXPECT_EQ(HtCapabilities{.magnitude_bits = b}.to_ccap15() & 31, 0) << b;
  EXPECT_EQ(HtCapabilities{.magnitude_bits = 18}.to_ccap15() & 31, 10);
  EXPECT_EQ(HtCapabilities{.magnitude_bits = 31}.to_ccap15() & 31, 20);
  EXPECT_EQ(HtCapabilities::from_ccap15(20).magnitude_bits, 28);
}

TEST(Capabilities, ParseWriteAndFindEachPart) {
  Capabilities cap;
  cap.pcap = (1u << (32 - 2)) | (1u << (32 - 15));  // parts 2 and 15
  cap.ccap = {0x1234, 0x0003};
  ByteWriter w;
  write_cap(w, cap);
  const std::vector<uint8_t> bytes(w.data().begin(), w.data().end());
  ASSERT_EQ(bytes.size(), 2u + 2 + 4 + 4);
  EXPECT_EQ(bytes[0], 0xFF);
  EXPECT_EQ(bytes[1], 0x50);
  EXPECT_EQ(bytes[2] << 8 | bytes[3], 10);  // Lcap = 6 + 2 x 2
  const std::vector<uint8_t> body(bytes.begin() + 4, bytes.end());
  ByteReader r = reader_of(body);
  auto parsed = parse_cap(r);
  ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
  EXPECT_EQ(*parsed, cap);
  EXPECT_EQ(parsed->part(2), 0x1234);
  EXPECT_EQ(parsed->part(15), 0x0003);
  EXPECT_FALSE(parsed->part(1).has_value());
}

TEST(Capabilities, BadSegmentsNameTheMarkerAndByte) {
  // Pcap names part 15 but no Ccap^15 follows.
  const std::vector<uint8_t> short_cap = {0x00, 0x02, 0x00, 0x00};
  ByteReader r = reader_of(short_cap);
  auto cap = parse_cap(r);
  ASSERT_FALSE(cap.ok());
  EXPECT_NE(cap.status().message().find("CAP at byte 100"), std::string::npos) << cap.status().message();
  EXPECT_NE(cap.status().message().find("lists 1 parts but 0 bytes"), std::string::npos) << cap.status().message();
  const std::vector<uint8_t> odd_bytes = {0x00, 0x01, 0x02}, two_words = {0x00, 0x01, 0x80, 0x02};
  ByteReader odd = reader_of(odd_bytes);
  auto cpf = parse_cpf(odd);
  ASSERT_FALSE(cpf.ok());
  EXPECT_NE(cpf.status().message().find("CPF at byte 100"), std::string::npos) << cpf.status().message();
  ByteReader two = reader_of(two_words);
  auto words = parse_cpf(two);
  ASSERT_TRUE(words.ok());
  EXPECT_EQ(*words, std::vector<uint16_t>({0x0001, 0x8002}));
}

// The main header of an HT encode, with a second CAP spliced in after the
// first: the reader refuses it by name.
TEST(HtCodestream, EncoderWritesCapAndTheReaderReadsIt) {
  const Image image = testing::generated_image(96, 80, 3, 8, false, 2);
  for (const bool reversible : {true, false}) {
    EncodeOptions o;
    o.style.ht = true;
    o.reversible = reversible;
    auto bytes = encode(image, o);
    ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
    auto cs = parse_codestream(*bytes);
    ASSERT_TRUE(cs.ok()) << cs.status().to_string();
    EXPECT_TRUE(cs->main.siz.rsiz & kRsizCapabilities);
    ASSERT_TRUE(cs->main.cap.part(15).has_value());
    const HtCapabilities ht = HtCapabilities::from_ccap15(*cs->main.cap.part(15));
    EXPECT_EQ(ht.blocks, HtCapabilities::Blocks::kHtOnly);
    EXPECT_EQ(ht.irreversible, !reversible);
    EXPECT_TRUE(cs->main.cod.component.style.ht);
    EXPECT_FALSE(cs->main.cod.component.style.ht_mixed);
    if (reversible) {
      // E-2: Mb = G + epsilon - 1; the 5/3 HH band of 8-bit samples has epsilon = 8 + 2, with 2 guard bits.
      EXPECT_EQ(ht.magnitude_bits, 2 + 10 - 1);
    }
  }
  // Part 1 streams carry neither.
  auto part1 = encode(image, EncodeOptions{});
  ASSERT_TRUE(part1.ok());
  auto cs = parse_codestream(*part1);
  ASSERT_TRUE(cs.ok());
  EXPECT_TRUE(cs->main.cap.empty());
  EXPECT_FALSE(cs->main.siz.rsiz & kRsizCapabilities);
}

TEST(HtCodestream, SecondCapIsRefused) {
  EncodeOptions o;
  o.style.ht = true;
  auto bytes = encode(testing::generated_image(32, 32, 1, 8, false, 3), o);
  ASSERT_TRUE(bytes.ok());
  std::vector<uint8_t> data = *bytes;
  // The CAP follows SIZ: SOC (2) + SIZ (2 + Lsiz).
  const size_t cap_at = 4 + (data[4] << 8 | data[5]) + 0;
  ASSERT_EQ(data[cap_at], 0xFF);
  ASSERT_EQ(data[cap_at + 1], 0x50);
  const size_t cap_size = 2 + (data[cap_at + 2] << 8 | data[cap_at + 3]);
  data.insert(data.begin() + static_cast<ptrdiff_t>(cap_at + cap_size), data.begin() + static_cast<ptrdiff_t>(cap_at),
              data.begin() + static_cast<ptrdiff_t>(cap_at + cap_size));
  auto cs = parse_codestream(data);
  ASSERT_FALSE(cs.ok());
  EXPECT_NE(cs.status().message().find("second CAP"), std::string::npos) << cs.status().message();
}

TEST(HtCodestream, JphFilesCarryTheJphBrand) {
  EncodeOptions o;
  o.style.ht = true;
  o.container = Container::kJph;
  const Image image = testing::generated_image(40, 30, 3, 8, false, 4);
  auto bytes = encode(image, o);
  ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
  auto jph = parse_jp2(*bytes);
  ASSERT_TRUE(jph.ok()) << jph.status().to_string();
  EXPECT_EQ(jph->brand, box::kBrandJph);
  EXPECT_EQ(jph->compatibility, std::vector<uint32_t>({box::kBrandJph}));
  EXPECT_TRUE(jph->warnings.empty()) << jph->warnings.front();
  auto decoded = decode(*bytes, {}, nullptr);
  ASSERT_TRUE(decoded.ok()) << decoded.status().to_string();
  for (int c = 0; c < 3; ++c) EXPECT_TRUE(decoded->components[c].samples == image.components[c].samples) << c;
}

TEST(HtCodestream, EncoderRefusesWhatItDoesNotWrite) {
  const Image image = testing::generated_image(64, 64, 1, 8, false, 5);
  EncodeOptions layers;
  layers.style.ht = true;
  layers.reversible = false;
  layers.rate_kind = EncodeOptions::RateKind::kRatio;
  layers.rate_values = {40, 20};
  auto two = encode(image, layers);
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.status().message().find("one quality layer"), std::string::npos) << two.status().message();
  EncodeOptions mixed;
  mixed.style.ht = true;
  mixed.style.ht_mixed = true;
  auto m = encode(image, mixed);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("HTMIXED"), std::string::npos) << m.status().message();
}

// HT rate control: a size target is met from below within 1%, a PSNR target
// within 0.15 dB, as tests/codec/ht_rate_test.cc's PsnrTargetMet says why
// (an HT block ends only at the planes it was coded at, and on this small
// image's few blocks meet_psnr_targets' correction can step past the
// target: 40 dB lands 0.06 dB under).
TEST(HtCodestream, RateTargets) {
  const Image image = testing::generated_image(256, 192, 3, 8, false, 6);
  for (const double ratio : {10.0, 30.0}) {
    EncodeOptions o;
    o.style.ht = true;
    o.reversible = false;
    o.rate_kind = EncodeOptions::RateKind::kRatio;
    o.rate_values = {ratio};
    auto bytes = encode(image, o);
    ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
    const double target = std::floor(256.0 * 192 * 3 / ratio);
    EXPECT_LE(bytes->size(), target) << ratio;
    EXPECT_GE(bytes->size(), 0.99 * target) << ratio;
  }
  for (const double psnr : {32.0, 40.0}) {
    EncodeOptions o;
    o.style.ht = true;
    o.reversible = false;
    o.rate_kind = EncodeOptions::RateKind::kPsnr;
    o.rate_values = {psnr};
    auto bytes = encode(image, o);
    ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
    auto decoded = decode(*bytes, {}, nullptr);
    ASSERT_TRUE(decoded.ok());
    auto cmp = compare_images(image, *decoded);
    ASSERT_TRUE(cmp.ok());
    EXPECT_NEAR(cmp->overall.psnr, psnr, 0.15) << psnr;
  }
}

}  // namespace
}  // namespace mallat::codec
