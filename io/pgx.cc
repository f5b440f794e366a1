// PGX, the one-component format of the JPEG 2000 conformance suite
// (15444-4): "PG ML|LM [+|-]<bits> <width> <height>\n" then raw samples of 1,
// 2 or 4 bytes (bits <= 8, <= 16, <= 32), big-endian for ML, little-endian
// for LM; signed samples are two's complement in that container.
#include "io/formats.h"
#include "io/text_header.h"

namespace mallat::io::detail {
namespace {

constexpr uint64_t kMaxSide = uint64_t{1} << 24;

int container_bytes(int bits) { return bits <= 8 ? 1 : bits <= 16 ? 2 : 4; }

}  // namespace

Result<PgxHeader> read_pgx_header(Bytes file) {
  if (file.size() < 3 || file[0] != 'P' || file[1] != 'G')
    return corrupt_data("not a PGX file (no 'PG' magic)");
  TextHeader header(file, /*hash_comments=*/false);
  header.set_pos(2);
  header.skip_space();
  if (file.size() - header.pos() < 2) return corrupt_data("the header ends before the byte order");
  const char b0 = static_cast<char>(file[header.pos()]), b1 = static_cast<char>(file[header.pos() + 1]);
  PgxHeader h;
  if (b0 == 'M' && b1 == 'L') {
    h.big_endian = true;
  } else if (b0 == 'L' && b1 == 'M') {
    h.big_endian = false;
  } else {
    return corrupt_data("the byte order must be ML or LM");
  }
  header.set_pos(header.pos() + 2);
  header.skip_space();
  // The sign is optional (absent means unsigned); some writers put a space after it.
  if (header.peek() == '+' || header.peek() == '-') {
    h.is_signed = header.peek() == '-';
    header.advance();
  }
  MALLAT_ASSIGN_OR_RETURN(uint64_t bits, header.number("bit depth", 99));
  MALLAT_ASSIGN_OR_RETURN(h.width, header.number("width", kMaxSide));
  MALLAT_ASSIGN_OR_RETURN(h.height, header.number("height", kMaxSide));
  if (bits < 1 || bits > 31)
    return unsupported("bit depth " + std::to_string(bits) + " (this reader takes 1..31)");
  if (h.width == 0 || h.height == 0) return corrupt_data("the width or height is zero");
  // One whitespace byte (a newline in practice) ends the header.
  if (!TextHeader::is_space(header.peek())) return corrupt_data("no whitespace after the header");
  header.advance();
  h.bits = static_cast<int>(bits);
  h.nbytes = container_bytes(h.bits);
  h.data = header.pos();
  return h;
}

Status check_pgx_size(const PgxHeader& h, uint64_t available) {
  const uint64_t need = h.width * h.height * h.nbytes;
  if (available < need)
    return corrupt_data("truncated: the samples need " + std::to_string(need) + " bytes, the file has " +
                        std::to_string(available));
  return Status::Ok();
}

Status convert_pgx_samples(const uint8_t* src, size_t count, const PgxHeader& h, size_t first, int32_t* out) {
  const int nbytes = h.nbytes;
  const int64_t lo = h.is_signed ? -(int64_t{1} << (h.bits - 1)) : 0;
  const int64_t hi = h.is_signed ? (int64_t{1} << (h.bits - 1)) - 1 : (int64_t{1} << h.bits) - 1;
  for (size_t i = 0; i < count; ++i, src += nbytes) {
    uint32_t raw = 0;
    for (int k = 0; k < nbytes; ++k)
      raw |= static_cast<uint32_t>(src[h.big_endian ? k : nbytes - 1 - k]) << (8 * (nbytes - 1 - k));
    int64_t v = raw;
    if (h.is_signed && (raw >> (8 * nbytes - 1)) != 0) v -= int64_t{1} << (8 * nbytes);
    if (v < lo || v > hi)
      return corrupt_data("sample " + std::to_string(v) + " at index " + std::to_string(first + i) +
                          " is outside the range of " + std::to_string(h.bits) +
                          (h.is_signed ? "-bit signed" : "-bit unsigned") + " samples");
    out[i] = static_cast<int32_t>(v);
  }
  return Status::Ok();
}

Result<Image> decode_pgx(Bytes file, uint64_t max_memory) {
  MALLAT_ASSIGN_OR_RETURN(const PgxHeader h, read_pgx_header(file));
  MALLAT_RETURN_IF_ERROR(check_pgx_size(h, file.size() - h.data));
  MALLAT_RETURN_IF_ERROR(check_image_memory(h.width, h.height, 1, max_memory));
  MALLAT_ASSIGN_OR_RETURN(Image image, make_image(static_cast<int64_t>(h.width), static_cast<int64_t>(h.height), 1,
                                                  h.bits, h.is_signed));
  Component& comp = image.components[0];
  MALLAT_RETURN_IF_ERROR(convert_pgx_samples(file.data() + h.data, comp.samples.size(), h, 0, comp.samples.data()));
  image.color_space = ColorSpace::kGray;
  return image;
}

Result<std::string> pgx_header(const Component& comp) {
  if (comp.precision < 1 || comp.precision > 31)
    return invalid_argument("PGX writing takes 1..31 bits, not " + std::to_string(comp.precision));
  if (comp.width <= 0 || comp.height <= 0) return invalid_argument("the component is empty");
  return std::string("PG ML ") + (comp.is_signed ? "-" : "+") + std::to_string(comp.precision) + " " +
         std::to_string(comp.width) + " " + std::to_string(comp.height) + "\n";
}

Status pgx_sample_bytes(const Component& comp, const int32_t* samples, size_t count, uint8_t* out) {
  const int nbytes = container_bytes(comp.precision);
  const int32_t lo = comp.min_value(), hi = comp.max_value();
  for (size_t i = 0; i < count; ++i) {
    const int32_t v = samples[i];
    if (v < lo || v > hi)
      return invalid_argument("sample " + std::to_string(v) + " is outside " + std::to_string(lo) + ".." +
                              std::to_string(hi));
    const uint32_t raw = static_cast<uint32_t>(v);  // two's complement, cut to the container
    for (int k = nbytes - 1; k >= 0; --k) *out++ = static_cast<uint8_t>(raw >> (8 * k));
  }
  return Status::Ok();
}

Result<std::vector<uint8_t>> encode_pgx(const Component& comp) {
  MALLAT_ASSIGN_OR_RETURN(const std::string header, pgx_header(comp));
  if (comp.samples.size() != static_cast<size_t>(comp.width * comp.height))
    return invalid_argument("the component's sample count does not match its size");
  std::vector<uint8_t> out(header.begin(), header.end());
  out.resize(header.size() + comp.samples.size() * container_bytes(comp.precision));
  MALLAT_RETURN_IF_ERROR(pgx_sample_bytes(comp, comp.samples.data(), comp.samples.size(), out.data() + header.size()));
  return out;
}

}  // namespace mallat::io::detail
