#include "codec/jp2.h"

#include <cstring>
#include <string>

#include "codec/byte_writer.h"

namespace mallat::codec {

namespace {

constexpr uint32_t box_type(const char (&t)[5]) {
  return uint32_t(uint8_t(t[0])) << 24 | uint32_t(uint8_t(t[1])) << 16 | uint32_t(uint8_t(t[2])) << 8 |
         uint32_t(uint8_t(t[3]));
}

constexpr uint32_t kSignature = box_type("jP  ");
constexpr uint32_t kFileType = box_type("ftyp");
constexpr uint32_t kHeader = box_type("jp2h");
constexpr uint32_t kImageHeader = box_type("ihdr");
constexpr uint32_t kColour = box_type("colr");
constexpr uint32_t kCodestream = box_type("jp2c");
constexpr uint32_t kBrand = box_type("jp2 ");

uint32_t be32(const uint8_t* p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }

struct Box {
  uint32_t type = 0;
  std::span<const uint8_t> payload;
};

// I.4: LBox, TBox, optional XLBox; LBox 0 runs to the end of the data.
Result<Box> next_box(std::span<const uint8_t> data, size_t& pos) {
  if (data.size() - pos < 8) return corrupt_data("JP2 box header truncated at byte " + std::to_string(pos));
  uint64_t length = be32(&data[pos]);
  Box box;
  box.type = be32(&data[pos + 4]);
  size_t header = 8;
  if (length == 1) {
    if (data.size() - pos < 16) return corrupt_data("JP2 XLBox truncated at byte " + std::to_string(pos));
    length = uint64_t{be32(&data[pos + 8])} << 32 | be32(&data[pos + 12]);
    header = 16;
  } else if (length == 0) {
    length = data.size() - pos;
  }
  if (length < header || length > data.size() - pos) {
    if (box.type == kCodestream && length >= header) {
      length = data.size() - pos;  // a truncated codestream box: keep what is there
    } else {
      return corrupt_data("JP2 box at byte " + std::to_string(pos) + " has length " + std::to_string(length) +
                          " beyond the file");
    }
  }
  box.payload = data.subspan(pos + header, static_cast<size_t>(length - header));
  pos += static_cast<size_t>(length);
  return box;
}

}  // namespace

bool is_jp2(std::span<const uint8_t> data) {
  static const uint8_t kSig[12] = {0, 0, 0, 12, 'j', 'P', ' ', ' ', 0x0D, 0x0A, 0x87, 0x0A};
  return data.size() >= 12 && std::memcmp(data.data(), kSig, 12) == 0;
}

Result<Jp2Contents> read_jp2(std::span<const uint8_t> data) {
  if (!is_jp2(data)) return corrupt_data("not a JP2 file (no signature box)");
  Jp2Contents out;
  bool have_codestream = false;
  size_t pos = 0;
  while (pos < data.size() && !have_codestream) {
    MALLAT_ASSIGN_OR_RETURN(Box box, next_box(data, pos));
    if (box.type == kHeader) {
      size_t inner = 0;
      while (inner < box.payload.size()) {
        MALLAT_ASSIGN_OR_RETURN(Box sub, next_box(box.payload, inner));
        // I.5.3.3: METH 1 carries an enumerated colour space.
        if (sub.type == kColour && sub.payload.size() >= 7 && sub.payload[0] == 1) {
          const uint32_t cs = be32(&sub.payload[3]);
          out.color_space = cs == 16 ? ColorSpace::kRgb : cs == 17 ? ColorSpace::kGray
                            : cs == 18 ? ColorSpace::kYcc : ColorSpace::kUnknown;
        }
      }
    } else if (box.type == kCodestream) {
      out.codestream = box.payload;
      have_codestream = true;
    }
  }
  if (!have_codestream) return corrupt_data("JP2 file has no contiguous codestream box (jp2c)");
  return out;
}

Result<std::vector<uint8_t>> wrap_jp2(const Image& image, const MainHeader& main,
                                      std::vector<uint8_t> codestream) {
  ByteWriter w;
  // I.5.1 signature.
  w.u32(12);
  w.u32(kSignature);
  w.u32(0x0D0A870A);
  // I.5.2 file type: brand 'jp2 ', minor version 0, compatible with 'jp2 '.
  w.u32(20);
  w.u32(kFileType);
  w.u32(kBrand);
  w.u32(0);
  w.u32(kBrand);
  // I.5.3 header superbox: ihdr (22 bytes) + colr (15 bytes).
  w.u32(8 + 22 + 15);
  w.u32(kHeader);
  w.u32(22);
  w.u32(kImageHeader);
  w.u32(main.siz.ysiz - main.siz.yosiz);
  w.u32(main.siz.xsiz - main.siz.xosiz);
  w.u16(static_cast<uint16_t>(main.siz.components.size()));
  // I.5.3.1 BPC: 255 when components differ (a bpcc box would be needed).
  const ComponentSize& c0 = main.siz.components[0];
  bool same = true;
  for (const ComponentSize& c : main.siz.components) same = same && c.precision == c0.precision && c.is_signed == c0.is_signed;
  if (!same) return unsupported("JP2 output needs components of equal depth and sign; write a .j2k codestream");
  w.u8(static_cast<uint8_t>((c0.precision - 1) | (c0.is_signed ? 0x80 : 0)));
  w.u8(7);  // C: JPEG 2000
  w.u8(0);  // UnkC: colour space known
  w.u8(0);  // IPR: none
  w.u32(15);
  w.u32(kColour);
  w.u8(1);  // METH: enumerated
  w.u8(0);  // PREC
  w.u8(0);  // APPROX
  w.u32(image.num_components() >= 3 ? 16 : 17);  // sRGB or greyscale
  // I.5.4 contiguous codestream.
  if (codestream.size() > 0xFFFFFFFFull - 8) return resource_limit("codestream too large for a JP2 box");
  w.u32(static_cast<uint32_t>(8 + codestream.size()));
  w.u32(kCodestream);
  w.bytes(codestream);
  return w.take();
}

}  // namespace mallat::codec
