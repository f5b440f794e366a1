// PAM (Netpbm P7, netpbm.sourceforge.net/doc/pam.html): a header of
// "KEYWORD value" lines up to ENDHDR (WIDTH, HEIGHT, DEPTH, MAXVAL, TUPLTYPE),
// then the same binary raster as P5/P6 with DEPTH samples per pixel. It holds
// any number of channels, so alpha and extra components survive.
#include <string>

#include "io/formats.h"
#include "io/text_header.h"

namespace mallat::io::detail {
namespace {

constexpr uint64_t kMaxSide = uint64_t{1} << 24;
constexpr uint64_t kMaxDepth = 16384;  // Csiz's limit (A.5.1): any JPEG 2000 image fits

// The keyword at the cursor (letters, digits and '_'), after space and comments.
std::string keyword(TextHeader& h) {
  h.skip_space();
  std::string word;
  while (!h.at_end() && !TextHeader::is_space(h.peek())) {
    word.push_back(static_cast<char>(h.peek()));
    h.advance();
  }
  return word;
}

// The rest of the line (TUPLTYPE's value), without surrounding space.
std::string line_value(TextHeader& h) {
  std::string value;
  while (!h.at_end() && h.peek() != '\n') {
    value.push_back(static_cast<char>(h.peek()));
    h.advance();
  }
  const size_t first = value.find_first_not_of(" \t\r");
  const size_t last = value.find_last_not_of(" \t\r");
  return first == std::string::npos ? std::string() : value.substr(first, last - first + 1);
}

}  // namespace

Result<PamHeader> read_pam_header(Bytes file) {
  TextHeader h(file, /*hash_comments=*/true);
  h.set_pos(2);
  PamHeader out;
  PnmHeader& pnm = out.pnm;
  pnm.kind = '7';
  uint64_t depth = 0;
  for (;;) {
    const std::string key = keyword(h);
    if (key.empty()) return corrupt_data("PAM header ends before ENDHDR");
    if (key == "ENDHDR") break;
    if (key == "WIDTH") {
      MALLAT_ASSIGN_OR_RETURN(pnm.width, h.number("WIDTH", kMaxSide));
    } else if (key == "HEIGHT") {
      MALLAT_ASSIGN_OR_RETURN(pnm.height, h.number("HEIGHT", kMaxSide));
    } else if (key == "DEPTH") {
      MALLAT_ASSIGN_OR_RETURN(depth, h.number("DEPTH", kMaxDepth));
    } else if (key == "MAXVAL") {
      MALLAT_ASSIGN_OR_RETURN(pnm.maxval, h.number("MAXVAL", 65535));
    } else if (key == "TUPLTYPE") {
      out.tupltype = line_value(h);
    } else {
      return corrupt_data("PAM header: unknown keyword '" + key.substr(0, 32) + "'");
    }
  }
  if (pnm.width == 0 || pnm.height == 0 || depth == 0 || pnm.maxval == 0)
    return corrupt_data("PAM header lacks WIDTH, HEIGHT, DEPTH or MAXVAL (or one is zero)");
  pnm.channels = static_cast<int>(depth);
  // ENDHDR ends its line: the raster starts after the newline.
  while (!h.at_end() && h.peek() != '\n') h.advance();
  if (h.at_end()) return corrupt_data("PAM: no raster after ENDHDR");
  h.advance();
  pnm.raster = h.pos();
  return out;
}

void set_pam_color(Image& image, const std::string& tupltype) {
  set_color_from_count(image);
  // TUPLTYPE names alpha explicitly; without it, 2 and 4 channels are taken
  // as grey + alpha and RGBA as PNG and TIFF would.
  if (!tupltype.empty()) image.has_alpha = tupltype.find("_ALPHA") != std::string::npos;
  if (tupltype == "GRAYSCALE" || tupltype == "GRAYSCALE_ALPHA") image.color_space = ColorSpace::kGray;
}

Result<Image> decode_pam(Bytes file, uint64_t max_memory) {
  MALLAT_ASSIGN_OR_RETURN(const PamHeader header, read_pam_header(file));
  const PnmHeader& pnm = header.pnm;
  MALLAT_RETURN_IF_ERROR(check_image_memory(pnm.width, pnm.height, static_cast<uint64_t>(pnm.channels), max_memory));
  MALLAT_ASSIGN_OR_RETURN(Image image, read_binary_raster(file.subspan(pnm.raster), pnm.width, pnm.height,
                                                          pnm.channels, pnm.maxval));
  set_pam_color(image, header.tupltype);
  return image;
}

Status encode_pam(const Image& image, const ByteSink& sink, ThreadPool& pool) {
  const int n = image.num_components();
  if (n < 1 || static_cast<uint64_t>(n) > kMaxDepth) return invalid_argument("PAM holds 1 to 16384 channels");
  const char* kFormat = "PAM (P7)";
  if (!check_interleavable(image, kFormat, {n}, 16, /*check_values=*/false).ok())
    return check_interleavable(image, kFormat, {n}, 16);
  const bool rgb = image.color_space != ColorSpace::kGray && n >= 3;
  std::string tupltype;
  if (n == 1 || (n == 2 && image.has_alpha)) tupltype = n == 1 ? "GRAYSCALE" : "GRAYSCALE_ALPHA";
  if (n == 3 && rgb) tupltype = "RGB";
  if (n == 4 && rgb && image.has_alpha) tupltype = "RGB_ALPHA";
  const std::string header = "P7\nWIDTH " + std::to_string(image.width()) + "\nHEIGHT " +
                             std::to_string(image.height()) + "\nDEPTH " + std::to_string(n) + "\nMAXVAL " +
                             std::to_string((1u << image.components[0].precision) - 1) + "\n" +
                             (tupltype.empty() ? "" : "TUPLTYPE " + tupltype + "\n") + "ENDHDR\n";
  MALLAT_RETURN_IF_ERROR(sink({reinterpret_cast<const uint8_t*>(header.data()), header.size()}));
  return write_binary_raster(image, sink, pool, [&] { return check_interleavable(image, kFormat, {n}, 16); });
}

}  // namespace mallat::io::detail
