// encode and decode, with opj_compress / opj_decompress option names where
// the meaning is the same.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <string>

#include "codec/codec.h"
#include "codec/jp2/jp2_colour.h"
#include "io/file.h"
#include "io/image_io.h"
#include "tools/commands.h"
#include "tools/decode_output.h"
#include "tools/encode_feature_args.h"

namespace mallat::tools {
namespace {

const char kEncodeUsage[] =
    "usage: mallat encode -i IN -o OUT [options]\n"
    "Encodes an image (PNG, TIFF, PNM, PGX, BMP) to JPEG 2000: OUT ending in .jp2 gives a JP2\n"
    "file, .j2k or .j2c a raw codestream. Lossless (reversible 5/3 + RCT) by default.\n"
    "\n"
    "  -I              irreversible path: ICT + 9/7 wavelet + dead-zone quantisation\n"
    "  -r R,R,...      one quality layer per compression ratio (decreasing): the file is\n"
    "                  at most (bits of the raw image / 8) / R bytes; 1 = lossless layer.\n"
    "                  Without -I the reversible 5/3 stream is truncated (lossy 5/3)\n"
    "  --bpp B,B,...   one layer per size in bits per pixel of the whole file (increasing)\n"
    "  -q P,P,...      one layer per PSNR in dB (increasing); 0 = lossless layer\n"
    "  --quant Q       expounded (default: a step per subband) or derived (one step, E-5)\n"
    "  -GuardBits N    guard bits 0..7 (default 2)\n"
    "  -n N            number of resolutions (decomposition levels + 1), default 6\n"
    "  -b W,H          code-block size, powers of two 4..1024, W*H <= 4096, default 64,64\n"
    "  -t W,H          tile size (default: one tile)\n"
    "  -T X,Y          tile grid origin\n"
    "  -d X,Y          image origin on the reference grid\n"
    "  -c [W,H],...    precinct sizes (powers of two), highest resolution first;\n"
    "                  the last repeats for lower resolutions\n"
    "  -p ORDER        progression order: LRCP (default), RLCP, RPCL, PCRL, CPRL\n"
    "  -M N            code-block mode switches, a sum of 1 BYPASS, 2 RESET, 4 TERMALL,\n"
    "                  8 VSC, 16 ERTERM, 32 SEGMARK (as opj_compress)\n"
    "  -mct 0|1        colour transform off / on (default: on for 3+ components)\n"
    "  -SOP, -EPH      write SOP / EPH markers\n"
    "  -TLM, -PLT      write TLM / PLT markers\n"
    "  -POC T<t>=<resStart>,<compStart>,<layerEnd>,<resEnd>,<compEnd>,<order>/...\n"
    "                  progression changes of tile t (from 1, as opj_compress), written in\n"
    "                  its tile-part header; packets they leave out follow in the -p order\n"
    "  -TP R|L|C       divide each tile into tile-parts wherever the progression moves to\n"
    "                  another resolution (R), layer (L) or component (C)\n"
    "  --ppm           (mallat only) packet headers in PPM segments of the main header\n"
    "  --ppt           (mallat only) packet headers in PPT segments of each tile-part header\n"
    "  -ROI c=C,U=S    max-shift region of interest: every coefficient of component C\n"
    "                  shifted up by S bit-planes (0..37), RGN marker (as opj_compress:\n"
    "                  the whole component is the region)\n"
    "  -threads N      Tier-1 threads (default: all cores); output is identical for any N\n"
    "  --dwt B         wavelet backend: cpu (default: faster for whole files), cuda, or\n"
    "                  auto (cuda when a device is present); output is identical\n"
    "  --max-memory S  refuse an input image whose samples need more than S bytes (K, M or G\n"
    "                  suffix: 1024-based); default: half of the machine's memory or ulimit -v\n";

const char kDecodeUsage[] =
    "usage: mallat decode -i IN -o OUT [options]\n"
    "Decodes a JPEG 2000 codestream (.j2k, .j2c) or JP2 file to an image; OUT's extension\n"
    "picks the format (PNG, TIFF, PNM, PGX, BMP). For a JP2 file the palette (pclr, cmap)\n"
    "is expanded, channels are ordered by cdef (opacity kept as alpha) and sYCC becomes\n"
    "RGB; a restricted ICC profile is written into PNG and TIFF output. Sub-sampled\n"
    "components are upsampled for PNM, PNG, TIFF and BMP. PGX output of N > 1\n"
    "components writes OUT's stem + _0.pgx .. _<N-1>.pgx. Every file is written, or none.\n"
    "\n"
    "  -r N            reduce: discard the N highest resolution levels\n"
    "  -l N            decode only the first N quality layers\n"
    "  -t N            decode only tile N\n"
    "  -p B[C|S],...   force the precision of components to B bits (0: keep), per\n"
    "                  component, the last repeating; C clips (default), S scales\n"
    "                  (down by a right shift, up by (2^B-1)/(2^b-1)), as opj_decompress\n"
    "  -upsample       bring sub-sampled components to the image size (any format)\n"
    "  -force-rgb      write greyscale as RGB (the grey channel three times)\n"
    "  -split-pnm      PNM output: one PGM per component, OUT's stem + _<c>.pgm\n"
    "  --icc-to-srgb   apply the file's restricted ICC profile: sRGB samples, no profile\n"
    "  -threads N      threads for decoding and for the conversion to PNM (default: all\n"
    "                  cores); output is identical for any N\n"
    "  --dwt B         wavelet backend: cpu (default: faster for whole files), cuda, or\n"
    "                  auto (cuda when a device is present); output is identical\n"
    "  --max-memory S  refuse a stream whose headers need more memory than S bytes (K, M or G\n"
    "                  suffix: 1024-based); default: half of the machine's memory or ulimit -v\n";

bool parse_int(const std::string& s, int64_t lo, int64_t hi, int64_t* out) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < lo || v > hi) return false;
  *out = v;
  return true;
}

// A byte count with an optional K, M or G (powers of 1024) suffix; above 0.
bool parse_byte_size(std::string s, uint64_t* out) {
  int shift = 0;
  if (!s.empty()) {
    const char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(s.back())));
    shift = unit == 'K' ? 10 : unit == 'M' ? 20 : unit == 'G' ? 30 : 0;
    if (shift) s.pop_back();
  }
  int64_t v = 0;
  if (!parse_int(s, 1, (int64_t{1} << 62) >> shift, &v)) return false;
  *out = static_cast<uint64_t>(v) << shift;
  return true;
}

bool parse_pair(const std::string& s, int64_t lo, int64_t hi, int64_t* a, int64_t* b) {
  auto comma = s.find(',');
  if (comma == std::string::npos) return false;
  return parse_int(s.substr(0, comma), lo, hi, a) && parse_int(s.substr(comma + 1), lo, hi, b);
}

int log2_exact(int64_t v) {
  if (v <= 0 || (v & (v - 1))) return -1;
  int n = 0;
  while ((int64_t{1} << n) < v) ++n;
  return n;
}

// "[256,256],[128,128]" -> exponents.
bool parse_precincts(const std::string& s, std::vector<std::array<uint8_t, 2>>* out) {
  size_t pos = 0;
  while (pos < s.size()) {
    if (s[pos] == ',') ++pos;
    if (pos >= s.size() || s[pos] != '[') return false;
    auto close = s.find(']', pos);
    if (close == std::string::npos) return false;
    int64_t w, h;
    if (!parse_pair(s.substr(pos + 1, close - pos - 1), 1, 1 << 15, &w, &h)) return false;
    int ew = log2_exact(w), eh = log2_exact(h);
    if (ew < 0 || eh < 0) return false;
    out->push_back({static_cast<uint8_t>(ew), static_cast<uint8_t>(eh)});
    pos = close + 1;
  }
  return !out->empty();
}

// "40,20,10" -> {40, 20, 10}; every value a number >= 0.
bool parse_doubles(const std::string& s, std::vector<double>* out) {
  out->clear();
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t comma = s.find(',', pos);
    if (comma == std::string::npos) comma = s.size();
    const std::string item = s.substr(pos, comma - pos);
    double v = 0;
    auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc() || p != item.data() + item.size() || !(v >= 0) || v > 1e9) return false;
    out->push_back(v);
    pos = comma + 1;
  }
  return !out->empty();
}

bool parse_order(const std::string& s, codec::ProgressionOrder* out) {
  static const char* kNames[] = {"LRCP", "RLCP", "RPCL", "PCRL", "CPRL"};
  for (int i = 0; i < 5; ++i) {
    if (s == kNames[i]) {
      *out = static_cast<codec::ProgressionOrder>(i);
      return true;
    }
  }
  return false;
}

// -threads N and --dwt B, which encode and decode share; returns an error
// message, empty when the value is good.
std::string parse_run_option(const std::string& option, const std::string& value, int* threads,
                             dwt::BackendKind* backend) {
  if (option == "-threads") {
    int64_t n;
    if (!parse_int(value, 1, 1024, &n)) return "-threads must be 1..1024, got '" + value + "'";
    *threads = static_cast<int>(n);
    return "";
  }
  auto kind = dwt::parse_backend_kind(value);
  if (!kind.ok()) return kind.status().message();
  *backend = *kind;
  return "";
}

// --max-memory S, which encode (input image) and decode (stream) share.
std::string parse_max_memory(const std::string& value, uint64_t* bytes) {
  if (parse_byte_size(value, bytes)) return "";
  return "--max-memory must be a size in bytes such as 512M or 4G, got '" + value + "'";
}

bool ends_with_ci(const std::string& s, const std::string& suffix) {
  if (s.size() < suffix.size()) return false;
  return std::equal(suffix.rbegin(), suffix.rend(), s.rbegin(),
                    [](char a, char b) { return std::tolower(a) == std::tolower(b); });
}

}  // namespace

int encode_main(const Args& args) {
  std::string in, out;
  codec::EncodeOptions opt;
  uint64_t max_memory = 0;   // 0: io's default
  auto usage_error = [](const std::string& m) { return fail("encode", m + " (see --help)", 2); };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kEncodeUsage, stdout);
      return 0;
    }
    const bool flag = a == "-SOP" || a == "-EPH" || a == "-TLM" || a == "-PLT" || a == "-I" || a == "--ppm" ||
                      a == "--ppt";
    if (!flag && i + 1 >= args.size()) return usage_error("option " + a + " needs a value");
    const std::string v = flag ? "" : args[i + 1];
    if (!flag) ++i;
    int64_t x, y;
    if (a == "-i") {
      in = v;
    } else if (a == "-o") {
      out = v;
    } else if (a == "-n") {
      if (!parse_int(v, 1, 33, &x)) return usage_error("-n must be 1..33, got '" + v + "'");
      opt.resolutions = static_cast<int>(x);
      opt.resolutions_explicit = true;
    } else if (a == "-b") {
      if (!parse_pair(v, 4, 1024, &x, &y) || log2_exact(x) < 0 || log2_exact(y) < 0 ||
          x * y > 4096)
        return usage_error("-b needs W,H: powers of two 4..1024 with W*H <= 4096, got '" + v + "'");
      opt.xcb = log2_exact(x);
      opt.ycb = log2_exact(y);
    } else if (a == "-t") {
      if (!parse_pair(v, 1, UINT32_MAX, &x, &y)) return usage_error("-t needs W,H, got '" + v + "'");
      opt.tile_width = static_cast<uint32_t>(x);
      opt.tile_height = static_cast<uint32_t>(y);
    } else if (a == "-T") {
      if (!parse_pair(v, 0, UINT32_MAX, &x, &y)) return usage_error("-T needs X,Y, got '" + v + "'");
      opt.tile_x0 = static_cast<uint32_t>(x);
      opt.tile_y0 = static_cast<uint32_t>(y);
    } else if (a == "-d") {
      if (!parse_pair(v, 0, UINT32_MAX, &x, &y)) return usage_error("-d needs X,Y, got '" + v + "'");
      opt.image_x0 = static_cast<uint32_t>(x);
      opt.image_y0 = static_cast<uint32_t>(y);
    } else if (a == "-c") {
      if (!parse_precincts(v, &opt.precincts))
        return usage_error("-c needs [W,H],... with powers of two, got '" + v + "'");
    } else if (a == "-p") {
      if (!parse_order(v, &opt.order))
        return usage_error("-p must be LRCP, RLCP, RPCL, PCRL or CPRL, got '" + v + "'");
    } else if (a == "-M") {
      if (!parse_int(v, 0, 63, &x)) return usage_error("-M must be 0..63, got '" + v + "'");
      opt.style = codec::CodeBlockStyle::from_byte(static_cast<uint8_t>(x));
    } else if (a == "-mct") {
      if (!parse_int(v, 0, 1, &x)) return usage_error("-mct must be 0 or 1, got '" + v + "'");
      opt.mct = static_cast<int>(x);
    } else if (a == "-SOP") {
      opt.sop = true;
    } else if (a == "-EPH") {
      opt.eph = true;
    } else if (a == "-TLM") {
      opt.tlm = true;
    } else if (a == "-PLT") {
      opt.plt = true;
    } else if (a == "-I") {
      opt.reversible = false;
    } else if (a == "--ppm" || a == "--ppt") {
      using Packed = codec::EncodeOptions::PackedHeaders;
      const Packed packed = a == "--ppm" ? Packed::kPpm : Packed::kPpt;
      if (opt.packed_headers != Packed::kNone && opt.packed_headers != packed)
        return usage_error("--ppm and --ppt exclude each other");
      opt.packed_headers = packed;
    } else if (a == "-POC" || a == "-TP" || a == "-ROI") {
      const std::string error = a == "-POC"  ? parse_poc(v, &opt.progression_changes)
                                : a == "-TP" ? parse_tile_parts(v, &opt.tile_parts)
                                             : parse_roi(v, &opt.roi);
      if (!error.empty()) return usage_error(error);
    } else if (a == "-r" || a == "--bpp" || a == "-q") {
      using Kind = codec::EncodeOptions::RateKind;
      const Kind kind = a == "-r" ? Kind::kRatio : a == "--bpp" ? Kind::kBitsPerPixel : Kind::kPsnr;
      if (opt.rate_kind != Kind::kNone && opt.rate_kind != kind)
        return usage_error("-r, --bpp and -q exclude each other");
      opt.rate_kind = kind;
      if (!parse_doubles(v, &opt.rate_values) || opt.rate_values.size() > 65535)
        return usage_error(a + " needs numbers >= 0 separated by commas, got '" + v + "'");
    } else if (a == "--quant") {
      if (v != "expounded" && v != "derived")
        return usage_error("--quant must be expounded or derived, got '" + v + "'");
      opt.derived_quantization = v == "derived";
    } else if (a == "-GuardBits") {
      if (!parse_int(v, 0, 7, &x)) return usage_error("-GuardBits must be 0..7, got '" + v + "'");
      opt.guard_bits = static_cast<int>(x);
    } else if (a == "--max-memory") {
      std::string error = parse_max_memory(v, &max_memory);
      if (!error.empty()) return usage_error(error);
    } else if (a == "-threads" || a == "--dwt") {
      std::string error = parse_run_option(a, v, &opt.threads, &opt.dwt_backend);
      if (!error.empty()) return usage_error(error);
    } else {
      return usage_error("unknown option '" + a + "'");
    }
  }
  if (in.empty() || out.empty()) return usage_error("-i IN and -o OUT are required");
  if (opt.derived_quantization && opt.reversible) return usage_error("--quant derived needs -I");
  if (ends_with_ci(out, ".jp2")) {
    opt.container = codec::Container::kJp2;
  } else if (!ends_with_ci(out, ".j2k") && !ends_with_ci(out, ".j2c")) {
    return usage_error("output '" + out + "' must end in .j2k, .j2c or .jp2");
  }
  auto image = io::read_image(in, max_memory);
  if (!image.ok()) {
    const bool limit = image.status().code() == ErrorCode::kResourceLimit;
    return fail("encode", image.status().message() + (limit ? " (set it with --max-memory)" : ""));
  }
  auto bytes = codec::encode(*image, opt);
  if (!bytes.ok()) return fail("encode", in + ": " + bytes.status().message());
  Status s = io::write_file_atomically(out, *bytes);
  if (!s.ok()) return fail("encode", s.message());
  return 0;
}

int decode_main(const Args& args) {
  std::string in, out;
  codec::DecodeOptions opt;
  DecodeOutputOptions output;
  auto usage_error = [](const std::string& m) { return fail("decode", m + " (see --help)", 2); };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kDecodeUsage, stdout);
      return 0;
    }
    if (a == "-force-rgb" || a == "-upsample" || a == "-split-pnm" || a == "--icc-to-srgb") {
      (a == "-force-rgb" ? output.force_rgb : a == "-upsample" ? output.upsample
       : a == "-split-pnm" ? output.split_pnm : output.icc_to_srgb) = true;
      continue;
    }
    if (i + 1 >= args.size()) return usage_error("option " + a + " needs a value");
    const std::string v = args[++i];
    int64_t x;
    if (a == "-i") {
      in = v;
    } else if (a == "-o") {
      out = v;
    } else if (a == "-r") {
      if (!parse_int(v, 0, 32, &x)) return usage_error("-r must be 0..32, got '" + v + "'");
      opt.reduce = static_cast<int>(x);
    } else if (a == "-l") {
      if (!parse_int(v, 1, 65535, &x)) return usage_error("-l must be 1..65535, got '" + v + "'");
      opt.layers = static_cast<int>(x);
    } else if (a == "-t") {
      if (!parse_int(v, 0, 65534, &x)) return usage_error("-t must be a tile index, got '" + v + "'");
      opt.tile = static_cast<int>(x);
    } else if (a == "--max-memory") {
      std::string error = parse_max_memory(v, &opt.max_memory);
      if (!error.empty()) return usage_error(error);
    } else if (a == "-p") {
      auto requests = codec::parse_precision_requests(v);
      if (!requests.ok()) return usage_error(requests.status().message());
      output.precision = std::move(*requests);
    } else if (a == "-threads" || a == "--dwt") {
      std::string error = parse_run_option(a, v, &opt.threads, &opt.dwt_backend);
      if (!error.empty()) return usage_error(error);
    } else {
      return usage_error("unknown option '" + a + "'");
    }
  }
  if (in.empty() || out.empty()) return usage_error("-i IN and -o OUT are required");
  if (io::format_from_extension(out) == io::Format::kUnknown)
    return usage_error("cannot tell the output format from '" + out + "'");
  output.threads = opt.threads;
  auto data = io::read_file(in);
  if (!data.ok()) return fail("decode", data.status().message());
  codec::DecodeReport report;
  auto image = codec::decode_jp2_image(*data, opt, &report);
  for (const auto& w : report.warnings) std::fprintf(stderr, "mallat decode: warning: %s: %s\n", in.c_str(), w.c_str());
  if (!image.ok()) return fail("decode", in + ": " + image.status().message());
  std::vector<std::string> notes;
  Status s = prepare_output(*image, opt.reduce, out, output, &notes);
  if (!s.ok()) return fail("decode", in + ": " + s.message());
  for (const auto& n : notes) std::fprintf(stderr, "mallat decode: note: %s: %s\n", out.c_str(), n.c_str());
  s = write_outputs(*image, out, output);
  if (!s.ok()) return fail("decode", s.message());
  return 0;
}

}  // namespace mallat::tools
