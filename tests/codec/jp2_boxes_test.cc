#include "codec/jp2/jp2_boxes.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "codec/codestream/byte_writer.h"
#include "codec/codestream/codestream_reader.h"
#include "codec/codestream/marker_writer.h"
#include "tests/codec/codec_test_util.h"
#include "tests/testdata.h"

namespace mallat::codec {
namespace {

using mallat::codec::testing::files_with_extension;
using mallat::codec::testing::read_bytes;

// Width, height, components and precision from `opj_dump -i fileN.jp2`
// (OpenJPEG 2.5: x1, y1, numcomps, prec); colour method / EnumCS and the
// optional boxes from the 15444-4 descriptions of the files, checked against
// their bytes (xxd).
struct Jp2Facts {
  const char* file;
  uint32_t width, height;
  int numcomps, prec;
  int colr_method;
  uint32_t enumcs;
  bool palette;
  size_t cdef;
};

const Jp2Facts kJp2Facts[] = {
    {"file1.jp2", 768, 512, 3, 8, 1, 16, false, 0},  {"file2.jp2", 480, 640, 3, 8, 1, 18, false, 3},
    {"file3.jp2", 480, 640, 3, 8, 1, 18, false, 0},  {"file4.jp2", 768, 512, 1, 8, 1, 17, false, 0},
    {"file5.jp2", 768, 512, 3, 8, 2, 0, false, 0},   {"file6.jp2", 768, 512, 1, 12, 1, 17, false, 0},
    {"file7.jp2", 480, 640, 3, 16, 2, 0, false, 0},  {"file8.jp2", 700, 400, 1, 8, 2, 0, false, 0},
    {"file9.jp2", 768, 512, 1, 8, 1, 16, true, 0},
};

TEST(Jp2Boxes, ConformanceFilesMatchOpjDump) {
  MALLAT_REQUIRE_TESTDATA("conformance");
  for (const auto& f : kJp2Facts) {
    SCOPED_TRACE(f.file);
    auto bytes = read_bytes(mallat::testing::testdata_dir() / "conformance" / f.file);
    EXPECT_EQ(detect_container(bytes), Container::kJp2);
    auto jp2 = parse_jp2(bytes);
    ASSERT_TRUE(jp2.ok()) << jp2.status().to_string();
    // file5 and file7 are 'jpx ' files that list 'jp2 ' as compatible.
    EXPECT_NE(std::find(jp2->compatibility.begin(), jp2->compatibility.end(), box::kBrandJp2), jp2->compatibility.end());
    EXPECT_EQ(jp2->ihdr.width, f.width);
    EXPECT_EQ(jp2->ihdr.height, f.height);
    EXPECT_EQ(jp2->ihdr.num_components, f.numcomps);
    EXPECT_EQ((jp2->ihdr.bpc & 0x7F) + 1, f.prec);
    ASSERT_FALSE(jp2->colour.empty());
    EXPECT_EQ(jp2->colour[0].method, f.colr_method);
    if (f.colr_method == 1) {
      EXPECT_EQ(jp2->colour[0].enumerated, f.enumcs);
    } else {
      EXPECT_GT(jp2->colour[0].icc_profile.size(), 128u);  // an ICC header is 128 bytes
    }
    EXPECT_EQ(jp2->palette.has_value(), f.palette);
    EXPECT_EQ(jp2->channel_definitions.size(), f.cdef);
    auto cs_bytes = find_codestream(bytes);
    ASSERT_TRUE(cs_bytes.ok());
    auto cs = parse_codestream(*cs_bytes);
    ASSERT_TRUE(cs.ok()) << cs.status().to_string();
    EXPECT_EQ(cs->main.siz.xsiz - cs->main.siz.xosiz, f.width);
    EXPECT_EQ(cs->main.siz.components.size(), static_cast<size_t>(f.numcomps));
    EXPECT_TRUE(cs->has_eoc);
  }
}

TEST(Jp2Boxes, File9PaletteHas256EntriesOf3Columns) {
  MALLAT_REQUIRE_TESTDATA("conformance/file9.jp2");
  auto bytes = read_bytes(mallat::testing::testdata_dir() / "conformance/file9.jp2");
  auto jp2 = parse_jp2(bytes);
  ASSERT_TRUE(jp2.ok());
  ASSERT_TRUE(jp2->palette);
  EXPECT_EQ(jp2->palette->entries.size(), 256u);
  EXPECT_EQ(jp2->palette->column_depth.size(), 3u);
  ASSERT_EQ(jp2->component_mapping.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(jp2->component_mapping[i].component, 0);
    EXPECT_EQ(jp2->component_mapping[i].mapping_type, 1);
    EXPECT_EQ(jp2->component_mapping[i].palette_column, i);
  }
}

TEST(Jp2Boxes, MalformedFilesParseOrFailCleanly) {
  MALLAT_REQUIRE_TESTDATA("malformed");
  auto dir = mallat::testing::testdata_dir() / "malformed";
  auto files = files_with_extension(dir, ".jp2");
  auto jpc = files_with_extension(dir, ".jpc");
  files.insert(files.end(), jpc.begin(), jpc.end());
  ASSERT_GE(files.size(), 20u);
  for (const auto& p : files) {
    SCOPED_TRACE(p.filename().string());
    auto bytes = read_bytes(p);
    auto cs_bytes = find_codestream(bytes);
    if (!cs_bytes.ok()) {
      EXPECT_FALSE(cs_bytes.status().message().empty());
      continue;
    }
    auto cs = parse_codestream(*cs_bytes);
    if (!cs.ok()) {
      EXPECT_FALSE(cs.status().message().empty());
      continue;
    }
    for (const Tile& t : cs->tiles)
      for (const TilePartHeader& tp : t.parts) EXPECT_LE(tp.data_offset + tp.data_length, cs_bytes->size());
  }
}

TEST(Jp2Boxes, TruncatedJp2FilesNeverCrash) {
  MALLAT_REQUIRE_TESTDATA("conformance");
  for (const char* name : {"file1.jp2", "file9.jp2", "file5.jp2"}) {
    auto bytes = read_bytes(mallat::testing::testdata_dir() / "conformance" / name);
    for (size_t cut = 0; cut < std::min<size_t>(bytes.size(), 20000); cut += 7) {
      std::span<const uint8_t> part(bytes.data(), cut);
      auto cs = find_codestream(part);
      if (cs.ok()) (void)parse_codestream(*cs);
    }
  }
}

// Every byte of the boxes before the codestream of file9 (jp2h with pclr and
// cmap) set to 0, 0xFF or flipped: never a crash, never a range outside the file.
TEST(Jp2Boxes, CorruptedBoxBytesNeverCrash) {
  MALLAT_REQUIRE_TESTDATA("conformance/file9.jp2");
  auto bytes = read_bytes(mallat::testing::testdata_dir() / "conformance/file9.jp2");
  auto clean = parse_jp2(bytes);
  ASSERT_TRUE(clean.ok());
  for (size_t i = 0; i < clean->codestream_offset; ++i) {
    for (uint8_t v : {uint8_t{0x00}, uint8_t{0xFF}, static_cast<uint8_t>(bytes[i] ^ 0x81)}) {
      auto copy = bytes;
      copy[i] = v;
      auto jp2 = parse_jp2(copy);
      if (!jp2.ok()) continue;
      EXPECT_LE(jp2->codestream_offset + jp2->codestream_length, copy.size());
      if (jp2->palette) {
        for (const auto& e : jp2->palette->entries) EXPECT_EQ(e.size(), jp2->palette->column_depth.size());
      }
    }
  }
}

ImageAndTileSize small_siz(int nc, int prec0 = 8) {
  ImageAndTileSize s;
  s.xsiz = 33;
  s.ysiz = 17;
  s.xosiz = 1;
  s.xtsiz = 33;
  s.ytsiz = 17;
  for (int c = 0; c < nc; ++c) s.components.push_back({c == 0 ? prec0 : 8, false, 1, 1});
  return s;
}

TEST(Jp2Boxes, WriteThenReadBack) {
  const uint8_t codestream[] = {0xFF, 0x4F, 0xFF, 0x51, 1, 2, 3, 0xFF, 0xD9};
  for (int nc : {1, 2, 3, 4}) {
    for (int prec0 : {8, 12}) {
      auto siz = small_siz(nc, prec0);
      auto file = write_jp2(siz, codestream);
      ASSERT_TRUE(file.ok()) << file.status().to_string();
      EXPECT_EQ(detect_container(*file), Container::kJp2);
      auto jp2 = parse_jp2(*file);
      ASSERT_TRUE(jp2.ok()) << jp2.status().to_string();
      EXPECT_TRUE(jp2->warnings.empty());
      EXPECT_EQ(jp2->ihdr.width, 32u);
      EXPECT_EQ(jp2->ihdr.height, 17u);
      EXPECT_EQ(jp2->ihdr.num_components, nc);
      bool same = nc == 1 || prec0 == 8;
      EXPECT_EQ(jp2->ihdr.bpc, same ? prec0 - 1 : 0xFF);
      EXPECT_EQ(jp2->bits_per_component.size(), same ? 0u : static_cast<size_t>(nc));
      ASSERT_EQ(jp2->colour.size(), 1u);
      EXPECT_EQ(jp2->colour[0].enumerated, nc >= 3 ? 16u : 17u);
      ASSERT_EQ(jp2->compatibility.size(), 1u);
      EXPECT_EQ(jp2->compatibility[0], box::kBrandJp2);
      auto cs = find_codestream(*file);
      ASSERT_TRUE(cs.ok());
      EXPECT_TRUE(std::equal(cs->begin(), cs->end(), std::begin(codestream), std::end(codestream)));
    }
  }
}

// OpenJPEG reads what we write: a real codestream in our JP2 wrapper.
TEST(Jp2Boxes, WrapsConformanceCodestream) {
  MALLAT_REQUIRE_TESTDATA("conformance/p0_01.j2k");
  auto cs_bytes = read_bytes(mallat::testing::testdata_dir() / "conformance/p0_01.j2k");
  auto cs = parse_codestream(cs_bytes);
  ASSERT_TRUE(cs.ok());
  auto file = write_jp2(cs->main.siz, cs_bytes);
  ASSERT_TRUE(file.ok());
  auto jp2 = parse_jp2(*file);
  ASSERT_TRUE(jp2.ok());
  EXPECT_EQ(jp2->codestream_length, cs_bytes.size());
  EXPECT_EQ(jp2->ihdr.width, 128u);
}

TEST(Jp2Boxes, BoxLengthsZeroAndXl) {
  ByteWriter w;
  w.u32(12);
  w.u32(box::kSignature);
  w.u32(box::kSignatureContent);
  w.u32(20);
  w.u32(box::kFileType);
  w.u32(box::kBrandJp2);
  w.u32(0);
  w.u32(box::kBrandJp2);
  // jp2h written with an XL length
  w.u32(1);
  w.u32(box::kHeader);
  w.u64(16 + 22 + 15);
  w.u32(22);
  w.u32(box::kImageHeader);
  w.u32(5);
  w.u32(6);
  w.u16(1);
  w.u8(7);
  w.u8(7);
  w.u8(0);
  w.u8(0);
  w.u32(15);
  w.u32(box::kColour);
  w.u8(1);
  w.u8(0);
  w.u8(0);
  w.u32(17);
  // an unknown box, then jp2c running to the end of the file (LBox = 0)
  w.u32(9);
  w.u32(0x75756964);
  w.u8(0);
  w.u32(0);
  w.u32(box::kCodestream);
  const uint8_t cs[] = {0xFF, 0x4F, 0xFF, 0x51};
  w.bytes(cs);
  auto jp2 = parse_jp2(w.data());
  ASSERT_TRUE(jp2.ok()) << jp2.status().to_string();
  EXPECT_EQ(jp2->ihdr.height, 5u);
  EXPECT_EQ(jp2->codestream_length, 4u);
  EXPECT_EQ(jp2->warnings.size(), 1u);  // the skipped 'uuid'
  // A box shorter than its own header is an error.
  auto bad = w.data();
  bad[12 + 3] = 4;  // ftyp LBox = 4
  EXPECT_FALSE(parse_jp2(bad).ok());
}

TEST(Jp2Boxes, EnumeratedColourSpacesOfTableI10) {
  EXPECT_EQ(enumerated_colour_space(16).color_space, ColorSpace::kRgb);
  EXPECT_STREQ(enumerated_colour_space(16).name, "sRGB");
  EXPECT_EQ(enumerated_colour_space(17).color_space, ColorSpace::kGray);
  EXPECT_STREQ(enumerated_colour_space(17).name, "greyscale");
  EXPECT_EQ(enumerated_colour_space(18).color_space, ColorSpace::kYcc);
  EXPECT_STREQ(enumerated_colour_space(18).name, "sYCC");
  // ROMM-RGB (21) is a 15444-2 space; 0 is no space at all.
  for (uint32_t other : {0u, 15u, 19u, 21u}) {
    EXPECT_EQ(enumerated_colour_space(other).color_space, ColorSpace::kUnknown) << other;
    EXPECT_STREQ(enumerated_colour_space(other).name, "not a 15444-1 space") << other;
  }
  // I.5.3.3: the first colr is the one that counts.
  Jp2File f;
  EXPECT_EQ(first_colour_specification(f), nullptr);
  f.colour.resize(2);
  EXPECT_EQ(first_colour_specification(f), &f.colour[0]);
}

TEST(Jp2Boxes, DetectContainer) {
  const uint8_t raw[] = {0xFF, 0x4F, 0xFF, 0x51, 0};
  const uint8_t junk[] = {1, 2, 3};
  EXPECT_EQ(detect_container(raw), Container::kCodestream);
  EXPECT_EQ(detect_container(junk), Container::kUnknown);
  EXPECT_FALSE(find_codestream(junk).ok());
}

}  // namespace
}  // namespace mallat::codec
