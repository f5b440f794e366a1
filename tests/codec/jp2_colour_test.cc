// Annex I on decoded components (codec/jp2_colour.h), sYCC (sycc.h), the
// restricted ICC profile (icc_profile.h) and the decode output steps
// (output_conversions.h), on hand-made boxes whose expected results are
// worked out in the comments, and on the conformance files.
#include "codec/jp2/jp2_colour.h"

#include <gtest/gtest.h>

#include <cmath>

#include "codec/codec.h"
#include "codec/codestream/byte_writer.h"
#include "codec/codestream/codestream_reader.h"
#include "codec/jp2/icc_profile.h"
#include "codec/jp2/output_conversions.h"
#include "codec/jp2/sycc.h"
#include "tests/codec/codec_test_util.h"
#include "tests/testdata.h"

namespace mallat::codec {
namespace {

Component plane(int64_t w, int64_t h, std::vector<int32_t> samples, int precision = 8, int dx = 1, int dy = 1) {
  Component c;
  c.width = w;
  c.height = h;
  c.precision = precision;
  c.dx = dx;
  c.dy = dy;
  c.samples = std::move(samples);
  return c;
}

Jp2File with_colour(uint32_t enumerated) {
  Jp2File f;
  ColourSpecification s;
  s.enumerated = enumerated;
  s.offset = 66;
  f.colour.push_back(s);
  f.ihdr.num_components = 1;
  return f;
}

TEST(Jp2Colour, PaletteColumnsWithTheirPrecisionAndSign) {
  Jp2File f = with_colour(16);
  Palette p;
  p.column_depth = {7, 7, 0x84};  // 8-bit, 8-bit, 5-bit signed
  p.entries = {{0, 10, -16}, {255, 20, 15}, {128, 30, -1}};
  p.offset = 80;
  f.palette = p;
  f.component_mapping = {{0, 1, 0}, {0, 1, 1}, {0, 1, 2}};
  Image image;
  image.components.push_back(plane(2, 2, {0, 1, 2, 7}));  // 7 is past the 3 entries
  std::vector<std::string> warnings;
  ASSERT_TRUE(apply_jp2_header(f, image, &warnings).ok());
  ASSERT_EQ(image.num_components(), 3);
  EXPECT_EQ(image.components[0].samples, (std::vector<int32_t>{0, 255, 128, 128}));
  EXPECT_EQ(image.components[1].samples, (std::vector<int32_t>{10, 20, 30, 30}));
  EXPECT_EQ(image.components[2].samples, (std::vector<int32_t>{-16, 15, -1, -1}));
  EXPECT_EQ(image.components[2].precision, 5);
  EXPECT_TRUE(image.components[2].is_signed);
  EXPECT_EQ(image.color_space, ColorSpace::kRgb);
  std::string all;
  for (const auto& w : warnings) all += w + "\n";
  ASSERT_EQ(warnings.size(), 1u) << all;
  EXPECT_NE(warnings[0].find("pclr at byte 80"), std::string::npos) << warnings[0];
}

TEST(Jp2Colour, MappingToAMissingComponentNamesCmap) {
  Jp2File f = with_colour(16);
  f.palette = Palette{{7}, {{1}}, 80};
  f.component_mapping = {{0, 1, 0}, {3, 0, 0}, {0, 0, 0}};
  f.component_mapping_offset = 120;
  Image image;
  image.components.push_back(plane(1, 1, {0}));
  Status s = apply_jp2_header(f, image, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cmap at byte 120"), std::string::npos) << s.message();
}

TEST(Jp2Colour, ChannelDefinitionsOrderColourAndKeepOpacity) {
  // Stored as alpha, B, G, R: cdef puts R, G, B first and alpha last.
  Jp2File f = with_colour(16);
  f.channel_definitions = {{0, 1, 0}, {1, 0, 3}, {2, 0, 2}, {3, 0, 1}};
  Image image;
  for (int v : {9, 3, 2, 1}) image.components.push_back(plane(1, 1, {v}));
  ASSERT_TRUE(apply_jp2_header(f, image, nullptr).ok());
  ASSERT_EQ(image.num_components(), 4);
  for (int c = 0; c < 4; ++c) EXPECT_EQ(image.components[c].samples[0], c < 3 ? c + 1 : 9);
  EXPECT_EQ(image.components[3].role, ChannelRole::kOpacity);
  EXPECT_EQ(image.components[0].role, ChannelRole::kColour);
  EXPECT_TRUE(image.has_alpha);
}

TEST(Jp2Colour, ChannelDescribedTwiceTakesTheFirstDescription) {
  // A cdef (I.5.3.6) that names channel 0 twice (as colour 1, then as
  // opacity). OpenJPEG does not refuse it; we read the first description
  // and warn. Channel 1, undescribed, follows in order.
  Jp2File f = with_colour(17);
  f.channel_definition_offset = 90;
  f.channel_definitions = {{0, 0, 1}, {0, 1, 0}};
  Image image;
  image.components.push_back(plane(1, 1, {5}));
  image.components.push_back(plane(1, 1, {7}));
  std::vector<std::string> warnings;
  ASSERT_TRUE(apply_jp2_header(f, image, &warnings).ok());
  ASSERT_EQ(image.num_components(), 2);
  EXPECT_EQ(image.components[0].samples[0], 5);
  EXPECT_EQ(image.components[0].role, ChannelRole::kColour);
  EXPECT_FALSE(image.has_alpha);
  std::string all;
  for (const auto& w : warnings) all += w + "\n";
  EXPECT_NE(all.find("cdef at byte 90 describes channel 0 twice: the first description counts"), std::string::npos)
      << all;
}

TEST(Jp2Colour, BadChannelDefinitionsAreErrors) {
  Jp2File f = with_colour(17);
  f.channel_definition_offset = 90;
  Image image;
  image.components.push_back(plane(1, 1, {0}));
  image.components.push_back(plane(1, 1, {0}));
  f.channel_definitions = {{0, 0, 1}, {0, 1, 0}};  // channel 0 twice: refused under --strict
  Status s = apply_jp2_header(f, image, nullptr, /*strict=*/true);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cdef at byte 90"), std::string::npos) << s.message();
  f.channel_definitions = {{0, 0, 1}, {5, 1, 0}};  // no channel 5
  EXPECT_FALSE(apply_jp2_header(f, image, nullptr).ok());
  f.channel_definitions = {{0, 0, 1}, {1, 0, 1}};  // two colour channels for colour 1
  EXPECT_FALSE(apply_jp2_header(f, image, nullptr).ok());
}

TEST(Jp2Colour, ColourSpecifications) {
  Image image;
  for (int c = 0; c < 3; ++c) image.components.push_back(plane(1, 1, {0}));
  Jp2File ycc = with_colour(18);
  ycc.ihdr.num_components = 3;
  ASSERT_TRUE(apply_jp2_header(ycc, image, nullptr).ok());
  EXPECT_EQ(image.color_space, ColorSpace::kYcc);
  std::vector<std::string> warnings;
  Jp2File romm = with_colour(21);  // ROMM-RGB, a 15444-2 space
  romm.ihdr.num_components = 3;
  ASSERT_TRUE(apply_jp2_header(romm, image, &warnings).ok());
  EXPECT_EQ(image.color_space, ColorSpace::kUnknown);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("enumerated colour space 21 is not one of 15444-1 (16 sRGB, 17 greyscale, 18 sYCC)"),
            std::string::npos) << warnings[0];
  // A profile that cannot be read is dropped with a warning (valid ones: Jp2Writer below).
  Jp2File icc = with_colour(0);
  icc.colour[0].method = 2;
  icc.ihdr.num_components = 3;
  icc.colour[0].icc_profile.assign(128, 0);
  std::copy_n("GRAY", 4, icc.colour[0].icc_profile.begin() + 16);
  warnings.clear();
  ASSERT_TRUE(apply_jp2_header(icc, image, &warnings).ok());
  EXPECT_EQ(image.color_space, ColorSpace::kUnknown);
  EXPECT_TRUE(image.icc_profile.empty());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("ICC profile ignored"), std::string::npos) << warnings[0];
  // sRGB with one colour channel cannot be: greyscale, with a warning.
  Image grey;
  grey.components.push_back(plane(1, 1, {0}));
  warnings.clear();
  ASSERT_TRUE(apply_jp2_header(with_colour(16), grey, &warnings).ok());
  EXPECT_EQ(grey.color_space, ColorSpace::kGray);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("colr at byte 66"), std::string::npos) << warnings[0];
  // I.5.3.3: only the first colr counts, even when a later one is enumerated.
  Jp2File two = icc;
  two.colour.push_back(with_colour(18).colour[0]);
  warnings.clear();
  ASSERT_TRUE(apply_jp2_header(two, image, &warnings).ok());
  EXPECT_EQ(image.color_space, ColorSpace::kUnknown);
  EXPECT_EQ(first_colour_specification(two), &two.colour[0]);
}

TEST(Sycc, OneSample) {
  // Neutral chroma is grey; y 100, cb 178, cr 108 at 8 bits:
  // r = 100 + trunc(1.402 * -20) = 72, g = 100 - trunc(0.344 * 50 + 0.714 * -20) = 98,
  // b = 100 + trunc(1.772 * 50) = 188.
  Rgb grey = sycc_sample_to_rgb(8, 128, 128, 128);
  EXPECT_EQ(grey.r, 128);
  EXPECT_EQ(grey.g, 128);
  EXPECT_EQ(grey.b, 128);
  Rgb c = sycc_sample_to_rgb(8, 100, 178, 108);
  EXPECT_EQ(c.r, 72);
  EXPECT_EQ(c.g, 98);
  EXPECT_EQ(c.b, 188);
  EXPECT_EQ(sycc_sample_to_rgb(8, 250, 128, 255).r, 255);  // clamped
}

TEST(Sycc, SubsampledChromaCoversTwoByTwo) {
  // 3x3 luma, 2x2 chroma (4:2:0 from the origin): luma (x, y) takes chroma (x/2, y/2).
  Image image;
  image.components.push_back(plane(3, 3, std::vector<int32_t>(9, 100)));
  image.components.push_back(plane(2, 2, {128, 178, 128, 128}, 8, 2, 2));
  image.components.push_back(plane(2, 2, {128, 108, 128, 128}, 8, 2, 2));
  ASSERT_TRUE(sycc_to_rgb(image, 0).ok());
  ASSERT_EQ(image.components[1].width, 3);
  const Rgb c = sycc_sample_to_rgb(8, 100, 178, 108);
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 3; ++x) {
      const bool coloured = x == 2 && y < 2;
      EXPECT_EQ(image.components[2].samples[y * 3 + x], coloured ? c.b : 100) << x << "," << y;
    }
  // Image at x0 = 1, x1 = 4: the one chroma sample sits at grid x 2 and covers
  // grid 2..3; luma column 0 (grid 1) comes before it and takes it too.
  Image odd;
  odd.x0 = 1;
  odd.components.push_back(plane(3, 1, std::vector<int32_t>(3, 100)));
  odd.components.push_back(plane(1, 1, {178}, 8, 2, 1));
  odd.components.push_back(plane(1, 1, {108}, 8, 2, 1));
  ASSERT_TRUE(sycc_to_rgb(odd, 0).ok());
  EXPECT_EQ(odd.components[0].samples, (std::vector<int32_t>{c.r, c.r, c.r}));
}

// A minimal ICC profile: header, tag table, then the tags (ICC.1).
std::vector<uint8_t> make_profile(bool grey, const std::vector<std::array<double, 3>>& colorants,
                                  const std::vector<double>& srgb_curve) {
  ByteWriter tags;
  std::vector<std::array<uint32_t, 3>> table;
  const uint32_t n = grey ? 1 : 6;
  const uint32_t data_start = 128 + 4 + 12 * n;
  auto sig = [](const char* s) { return uint32_t(s[0]) << 24 | uint32_t(s[1]) << 16 | uint32_t(s[2]) << 8 | uint32_t(s[3]); };
  auto fixed = [](double v) { return static_cast<uint32_t>(static_cast<int32_t>(std::lround(v * 65536))); };
  const char* curve_tags[3] = {grey ? "kTRC" : "rTRC", "gTRC", "bTRC"};
  for (uint32_t c = 0; c < (grey ? 1u : 3u); ++c) {
    table.push_back({sig(curve_tags[c]), data_start + static_cast<uint32_t>(tags.size()), 12 + 4 * 5});
    tags.u32(sig("para"));
    tags.u32(0);
    tags.u16(3);
    tags.u16(0);
    for (double p : srgb_curve) tags.u32(fixed(p));
  }
  const char* xyz_tags[3] = {"rXYZ", "gXYZ", "bXYZ"};
  for (size_t c = 0; c < colorants.size(); ++c) {
    table.push_back({sig(xyz_tags[c]), data_start + static_cast<uint32_t>(tags.size()), 20});
    tags.u32(sig("XYZ "));
    tags.u32(0);
    for (double v : colorants[c]) tags.u32(fixed(v));
  }
  ByteWriter w;
  w.u32(data_start + static_cast<uint32_t>(tags.size()));
  w.u32(0);  // CMM
  w.u32(0x02200000);  // version 2.2
  w.u32(sig("scnr"));
  w.u32(sig(grey ? "GRAY" : "RGB "));
  w.u32(sig("XYZ "));
  while (w.size() < 36) w.u8(0);
  w.u32(sig("acsp"));
  while (w.size() < 128) w.u8(0);
  w.u32(n);
  for (const auto& t : table) {
    w.u32(t[0]);
    w.u32(t[1]);
    w.u32(t[2]);
  }
  auto body = tags.take();
  w.bytes(body);
  return w.take();
}

const std::vector<double> kSrgbCurve = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045};

TEST(IccProfile, AnSrgbProfileIsAlmostTheIdentity) {
  // The D50 colorants of the sRGB profile (IEC 61966-2-1 adapted with Bradford).
  auto profile = make_profile(false, {{0.436066, 0.222488, 0.013916}, {0.385147, 0.716873, 0.097076},
                                      {0.143066, 0.060608, 0.714096}}, kSrgbCurve);
  auto parsed = parse_restricted_icc(profile);
  ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
  EXPECT_FALSE(parsed->monochrome);
  EXPECT_EQ(parsed->curves[0].kind, ToneCurve::Kind::kParametric);
  Image image;
  std::vector<int32_t> r, g, b;
  for (int v = 0; v < 256; v += 5)
    for (int k = 0; k < 3; ++k) {
      r.push_back(v);
      g.push_back(k == 0 ? v : 255 - v);
      b.push_back(k == 2 ? 0 : v / 2);
    }
  const int64_t n = static_cast<int64_t>(r.size());
  image.components = {plane(n, 1, r), plane(n, 1, g), plane(n, 1, b)};
  image.icc_profile = profile;
  const Image before = image;
  Status converted = icc_to_srgb(image);
  ASSERT_TRUE(converted.ok()) << converted.to_string();
  EXPECT_TRUE(image.icc_profile.empty());
  for (int c = 0; c < 3; ++c)
    for (int64_t i = 0; i < n; ++i)
      EXPECT_NEAR(image.components[c].samples[i], before.components[c].samples[i], 1) << c << " " << i;
}

TEST(IccProfile, GreyProfileGivesThreeEqualChannels) {
  auto profile = make_profile(true, {}, {1.0, 1.0, 0.0, 1.0, 0.0});  // linear grey (gamma 1)
  Image image;
  image.components = {plane(3, 1, {0, 128, 255})};
  image.icc_profile = profile;
  Status converted = icc_to_srgb(image);
  ASSERT_TRUE(converted.ok()) << converted.to_string();
  ASSERT_EQ(image.num_components(), 3);
  // Linear 128/255 = 0.50196 on the sRGB curve: 1.055 * 0.50196^(1/2.4) - 0.055 = 0.7354 -> 187.5.
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(image.components[c].samples[0], 0);
    EXPECT_NEAR(image.components[c].samples[1], 188, 1);
    EXPECT_EQ(image.components[c].samples[2], 255);
  }
}

TEST(IccProfile, UnusableProfilesAreErrors) {
  auto profile = make_profile(false, {{0.4, 0.2, 0.0}, {0.4, 0.7, 0.1}}, kSrgbCurve);  // no bXYZ
  EXPECT_FALSE(parse_restricted_icc(profile).ok());
  auto cut = make_profile(true, {}, kSrgbCurve);
  cut.resize(100);
  EXPECT_FALSE(parse_restricted_icc(cut).ok());
  auto cmyk = make_profile(true, {}, kSrgbCurve);
  std::copy_n("CMYK", 4, cmyk.begin() + 16);
  EXPECT_FALSE(parse_restricted_icc(cmyk).ok());
}

TEST(OutputConversions, PrecisionRequests) {
  auto r = parse_precision_requests("8S,4,0C");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 3u);
  EXPECT_TRUE((*r)[0].scale);
  EXPECT_EQ((*r)[1].bits, 4);
  EXPECT_FALSE((*r)[1].scale);
  EXPECT_EQ((*r)[2].bits, 0);
  EXPECT_FALSE(parse_precision_requests("40").ok());
  EXPECT_FALSE(parse_precision_requests("8X").ok());
  EXPECT_FALSE(parse_precision_requests("8,").ok());
  EXPECT_FALSE(parse_precision_requests("").ok());
}

TEST(OutputConversions, ForcePrecisionScalesAndClips) {
  Image image;
  image.components = {plane(3, 1, {0, 2048, 4095}, 12), plane(3, 1, {0, 7, 15}, 4), plane(3, 1, {0, 200, 300}, 9)};
  force_precision(image, {{8, true}, {8, true}, {8, false}});
  // Down: a right shift; up: v * 255 / 15; clip: to 0..255.
  EXPECT_EQ(image.components[0].samples, (std::vector<int32_t>{0, 128, 255}));
  EXPECT_EQ(image.components[1].samples, (std::vector<int32_t>{0, 119, 255}));
  EXPECT_EQ(image.components[2].samples, (std::vector<int32_t>{0, 200, 255}));
  for (const Component& c : image.components) EXPECT_EQ(c.precision, 8);
  Image s;
  s.components = {plane(2, 1, {-100, 100}, 8)};
  s.components[0].is_signed = true;
  force_precision(s, {{6, false}});  // signed 6 bits: -32..31
  EXPECT_EQ(s.components[0].samples, (std::vector<int32_t>{-32, 31}));
}

TEST(OutputConversions, UpsampleRepeatsSamples) {
  Image image;
  image.x0 = 1;  // grid x 1..3; the dx = 2 component has samples at grid 2 (and 4, beyond)
  image.components = {plane(3, 2, {1, 2, 3, 4, 5, 6}), plane(1, 1, {7}, 8, 2, 2)};
  EXPECT_FALSE(components_share_grid(image));
  ASSERT_TRUE(upsample_components(image, 0).ok());
  EXPECT_EQ(image.components[1].width, 3);
  EXPECT_EQ(image.components[1].height, 2);
  EXPECT_EQ(image.components[1].samples, std::vector<int32_t>(6, 7));
  Image quarter;  // 4:2:0 4x4: chroma 2x2, each sample over 2x2 luma
  quarter.components = {plane(4, 4, std::vector<int32_t>(16, 0)), plane(2, 2, {1, 2, 3, 4}, 8, 2, 2)};
  ASSERT_TRUE(upsample_components(quarter, 0).ok());
  EXPECT_EQ(quarter.components[1].samples,
            (std::vector<int32_t>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
  EXPECT_TRUE(components_share_grid(quarter));
}

TEST(OutputConversions, ForceRgb) {
  Image grey_alpha;
  grey_alpha.color_space = ColorSpace::kGray;
  grey_alpha.has_alpha = true;
  grey_alpha.components = {plane(1, 1, {5}), plane(1, 1, {200})};
  ASSERT_TRUE(force_rgb(grey_alpha).ok());
  ASSERT_EQ(grey_alpha.num_components(), 4);
  EXPECT_EQ(grey_alpha.components[2].samples[0], 5);
  EXPECT_EQ(grey_alpha.components[3].samples[0], 200);
  EXPECT_EQ(grey_alpha.color_space, ColorSpace::kRgb);
  Image ycc;
  ycc.color_space = ColorSpace::kYcc;
  ycc.components = {plane(1, 1, {0}), plane(1, 1, {0}), plane(1, 1, {0})};
  EXPECT_FALSE(force_rgb(ycc).ok());
}

TEST(Jp2Colour, PaletteFileDecodesToItsColumns) {
  MALLAT_REQUIRE_TESTDATA("conformance/file9.jp2");
  auto bytes = testing::read_bytes(mallat::testing::testdata_dir() / "conformance/file9.jp2");
  DecodeOptions raw;
  raw.apply_jp2_header = false;
  auto indices = decode(bytes, raw);
  ASSERT_TRUE(indices.ok());
  ASSERT_EQ(indices->num_components(), 1);
  DecodeReport report;
  auto image = decode(bytes, {}, &report);
  ASSERT_TRUE(image.ok()) << image.status().to_string();
  ASSERT_EQ(image->num_components(), 3);
  ASSERT_NE(report.jp2, nullptr);
  const Jp2File& jp2 = *report.jp2;
  ASSERT_TRUE(jp2.palette.has_value());
  for (size_t i = 0; i < indices->components[0].samples.size(); i += 997)
    for (int c = 0; c < 3; ++c)
      EXPECT_EQ(image->components[c].samples[i], jp2.palette->entries[indices->components[0].samples[i]][c]);
  // A raw codestream has no boxes to report.
  auto stream = find_codestream(bytes);
  ASSERT_TRUE(stream.ok());
  DecodeReport none;
  ASSERT_TRUE(decode(*stream, raw, &none).ok());
  EXPECT_EQ(none.jp2, nullptr);
}

// write_jp2 with what describe_for_jp2 says, read back by decode.
Result<Image> through_jp2(const Image& image, std::vector<uint8_t>* file_out = nullptr) {
  MALLAT_ASSIGN_OR_RETURN(auto stream, encode(image, {}));
  MALLAT_ASSIGN_OR_RETURN(Codestream cs, parse_codestream(stream));
  std::vector<std::string> warnings;
  MALLAT_ASSIGN_OR_RETURN(auto file, write_jp2(cs.main.siz, stream, describe_for_jp2(image, &warnings)));
  EXPECT_TRUE(warnings.empty());
  if (file_out) *file_out = file;
  return decode(file, {});
}

TEST(Jp2Writer, GreyAlphaAndIccSurviveARoundTrip) {
  Image image;
  image.color_space = ColorSpace::kGray;
  image.has_alpha = true;  // as the PNG reader gives grey + alpha: roles not set
  image.components = {plane(5, 3, std::vector<int32_t>(15, 40)), plane(5, 3, std::vector<int32_t>(15, 200))};
  image.components[0].samples[7] = 90;
  image.icc_profile = make_profile(true, {}, kSrgbCurve);
  std::vector<uint8_t> file;
  auto back = through_jp2(image, &file);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  auto jp2 = parse_jp2(file);
  ASSERT_TRUE(jp2.ok());
  ASSERT_EQ(jp2->channel_definitions.size(), 2u);
  EXPECT_EQ(jp2->channel_definitions[1].type, 1);  // opacity
  EXPECT_EQ(jp2->colour[0].method, 2);
  ASSERT_EQ(back->num_components(), 2);
  EXPECT_EQ(back->components[0].samples, image.components[0].samples);
  EXPECT_EQ(back->components[1].samples, image.components[1].samples);
  EXPECT_EQ(back->components[1].role, ChannelRole::kOpacity);
  EXPECT_TRUE(back->has_alpha);
  EXPECT_EQ(back->color_space, ColorSpace::kGray);
  EXPECT_EQ(back->icc_profile, image.icc_profile);
}

TEST(Jp2Writer, PlainRgbHasNoCdefAndAnUnusableProfileIsDropped) {
  Image image;
  image.color_space = ColorSpace::kRgb;
  for (int c = 0; c < 3; ++c) image.components.push_back(plane(2, 2, {c, 1, 2, 3}));
  image.icc_profile.assign(200, 0);  // not a profile
  std::vector<std::string> warnings;
  const Jp2Description d = describe_for_jp2(image, &warnings);
  EXPECT_TRUE(d.channels.empty());
  EXPECT_TRUE(d.icc_profile.empty());
  EXPECT_EQ(d.colour, EnumeratedColourSpace::kSRGB);
  EXPECT_EQ(warnings.size(), 1u);
}

}  // namespace
}  // namespace mallat::codec
