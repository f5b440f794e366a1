// encode and decode, with opj_compress / opj_decompress option names where
// the meaning is the same. Each command's options are one table
// (tools/option_table.h) that both the parser and --help read.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <span>
#include <string>

#include "codec/codec.h"
#include "codec/jp2/jp2_colour.h"
#include "codec/stages/device_tile_plan.h"
#include "codec/stages/device_tile_stages.h"
#include "io/file.h"
#include "io/image_io.h"
#include "io/raw.h"
#include "tools/batch.h"
#include "tools/commands.h"
#include "tools/decode_output.h"
#include "tools/decode_steps.h"
#include "tools/decode_streamed.h"
#include "tools/batch_lanes.h"
#include "tools/device_options.h"
#include "tools/device_placement.h"
#include "tools/encode_feature_args.h"
#include "tools/encode_input.h"
#include "tools/encode_streamed.h"
#include "tools/option_values.h"

namespace mallat::tools {
namespace {

// The text --help prints before each command's option list.
const char kEncodeIntro[] =
    "usage: mallat encode -i IN -o OUT [options]\n"
    "       mallat encode -i DIR|-i IN -i IN...|-ImgDir DIR -o OUTDIR [-OutFor EXT] [options]\n"
    "Encodes an image (PNG, TIFF, PNM, PGX, BMP; raw planes .raw/.yuv/.rawl with -F; or one file\n"
    "per component, -i a.pgx,b.pgx,c.pgx, each at its own sub-sampled size) to JPEG 2000: OUT\n"
    "ending in .jp2 gives a JP2 file, .jph a JPH file, .j2k, .j2c or .jhc a raw codestream.\n"
    "Lossless (reversible 5/3 + RCT) by default; Part 1 (EBCOT) code-blocks unless -M 64 / --ht\n"
    "asks for HT (HTJ2K). Sub-sampled components are coded at their size (SIZ XRsiz, YRsiz); the\n"
    "colour transform needs components 0..2 of one size and is left off (with a note) otherwise.\n"
    "Batch: every image of a folder, or several -i, into the folder OUTDIR as <stem>.EXT (j2k by\n"
    "default), each file with every option given; progress on stderr; a file that fails is named\n"
    "and the others go on (exit status 1 if any failed).\n";

const char kDecodeIntro[] =
    "usage: mallat decode -i IN -o OUT [options]\n"
    "Decodes a JPEG 2000 codestream (.j2k, .j2c, .jhc) or JP2/JPH file, Part 1 or HT (HTJ2K)\n"
    "code-blocks, to an image; OUT's extension\n"
    "picks the format (PNG, TIFF, PNM, PGX, BMP). For a JP2 file the palette (pclr, cmap)\n"
    "is expanded, channels are ordered by cdef (opacity kept as alpha) and sYCC becomes\n"
    "RGB; a restricted ICC profile is written into PNG and TIFF output and applied (sRGB)\n"
    "for PNM, PAM and BMP. Every image writes to every format, each change in a note:\n"
    "components of several sizes are upsampled for PNM, PAM, PNG, TIFF and BMP (all\n"
    "sub-sampled alike: written at their size); channels a format cannot hold are left\n"
    "out (PPM/PGM, BMP: 1 or 3; PNG, TIFF: up to 4; PAM (.pam): any); signed samples are\n"
    "offset to unsigned and precisions scaled to one the format holds. PGX output of N > 1\n"
    "components writes OUT's stem + _0.pgx .. _<N-1>.pgx. OUT ending in .raw (.yuv) or .rawl writes\n"
    "the components as coded, one after another at their own sizes, big- or little-endian, with no\n"
    "JP2 colour applied, and prints the -F text that reads them back (mallat encode, opj_compress).\n"
    "Every file is written, or none.\n"
    "Batch: -i DIR, several -i or -ImgDir DIR, with -o OUTDIR and -OutFor EXT: each .j2k, .j2c,\n"
    ".jhc, .jp2 and .jph file of the folder decoded to OUTDIR/<stem>.EXT, as for one file.\n";

constexpr std::string_view kDeviceHelp =
    "cpu (default), cuda, or auto (cuda when the build has it). With cuda, a batch of files sends each tile of Part "
    "1 code-blocks to the GPU whole (--device-stages all): encode runs the colour transform, DWT, quantisation and "
    "Tier-1 there, decode Tier-1 through the inverse colour transform; HT tiles, ROI and -d regions stay on the CPU. "
    "One file (or --device-stages tier1) codes Part 1 Tier-1 (EBCOT) blocks on the GPU and the CPU threads at once, "
    "the rest on the CPU. CUDA starts in the background while the input is read; a batch starts it once. Its "
    "start-up still slows the CPU stages by about 0.1 s, so a single file of less than about 128 MB (about 40 "
    "megapixels of 8-bit RGB) is encoded on the CPU alone, and a single file is decoded on the CPU alone. "
    "The files are identical to cpu's; a device that fails to start leaves the work to the CPU with a note";

// What encode's options fill in.
struct EncodeSettings {
  std::string out;
  std::string raw_format;  // -F
  bool whole_image = false;  // --whole-image: no streamed encode (tools/encode_streamed.h)
  BatchRequest batch;      // -i (one or more), -ImgDir, -OutFor
  codec::EncodeOptions codec;
  uint64_t max_memory = 0;  // 0: io's default
  bool quiet = false;       // -quiet
  bool fsync = false;       // --fsync
  DeviceRequest device_request;  // --device-share, --device-slots, --device-rounds
  int batch_files = 0;           // --batch-files; 0: batch_files_for's default
};

// What decode's options fill in.
struct DecodeSettings {
  std::string out;
  BatchRequest batch;  // -i (one or more), -ImgDir, -OutFor
  codec::DecodeOptions codec;
  DecodeOutputOptions output;
  bool partial_given = false;  // -allow-partial, whatever the order of --strict
  bool quiet = false;          // -quiet
  bool fsync = false;          // --fsync
  DeviceRequest device_request;  // --device-share, --device-slots, --device-rounds
  int batch_files = 0;  // --batch-files; 0: the default of its path (batch_lanes.h)
};

// -i, -ImgDir and -OutFor, which encode and decode share (batch.h).
template <typename Settings>
Status add_input(Settings& s, const std::string& v) {
  s.batch.inputs.push_back(v);
  return Status::Ok();
}
template <typename Settings>
Option<Settings> image_dir_row(std::string_view help) {
  return {{"-ImgDir"}, "DIR", help, "images", [](Settings& s, const std::string& v) {
            s.batch.image_dir = v;
            return Status::Ok();
          }};
}
template <typename Settings>
Option<Settings> out_format_row(std::string_view help, std::string_view example) {
  return {{"-OutFor"}, "EXT", help, example, [](Settings& s, const std::string& v) {
            s.batch.out_format = v;
            return Status::Ok();
          }};
}
template <typename Settings>
Option<Settings> device_row() {
  return {{"--device", "--dwt"}, "D", kDeviceHelp, "cpu", [](Settings& s, const std::string& v) {
            return parse_backend(v, &s.codec.dwt_backend);
          }};
}

template <typename Settings>
Option<Settings> fsync_row() {
  return {{"--fsync"}, "", kFsyncHelp, "", [](Settings& s, const std::string&) {
            s.fsync = true;
            return Status::Ok();
          }};
}

using EncodeOption = Option<EncodeSettings>;
using DecodeOption = Option<DecodeSettings>;
using Rate = codec::EncodeOptions::RateKind;
using Packed = codec::EncodeOptions::PackedHeaders;

// -r, --bpp and -q: one list of layer targets, of one kind.
Status set_rates(EncodeSettings& s, Rate kind, const char* option, const std::string& v) {
  if (s.codec.rate_kind != Rate::kNone && s.codec.rate_kind != kind)
    return invalid_argument("-r, --bpp and -q exclude each other");
  s.codec.rate_kind = kind;
  if (!parse_doubles(v, &s.codec.rate_values) || s.codec.rate_values.size() > 65535)
    return invalid_argument(std::string(option) + " needs numbers >= 0 separated by commas, got '" + v + "'");
  return Status::Ok();
}

// --ppm and --ppt: where packet headers go, one place only.
Status set_packed(EncodeSettings& s, Packed packed) {
  if (s.codec.packed_headers != Packed::kNone && s.codec.packed_headers != packed)
    return invalid_argument("--ppm and --ppt exclude each other");
  s.codec.packed_headers = packed;
  return Status::Ok();
}

// Two numbers "A,B" in lo..hi into `a` and `b`, or `error`.
Status set_pair(const std::string& v, int64_t lo, std::string error, uint32_t* a, uint32_t* b) {
  int64_t x, y;
  if (!parse_pair(v, lo, UINT32_MAX, &x, &y)) return invalid_argument(error + ", got '" + v + "'");
  *a = static_cast<uint32_t>(x);
  *b = static_cast<uint32_t>(y);
  return Status::Ok();
}

const std::vector<EncodeOption>& encode_table() {
  static const std::vector<EncodeOption> table = {
      {{"-i"}, "IN",
       "the image to encode: PNG, TIFF, PNM, PGX or BMP; raw planes (.raw or .yuv big-endian, .rawl "
       "little-endian) with -F; or a comma-separated list of one-component files, one per component, each at its "
       "own size (sub-sampling from the sizes against the largest, or -F @...) (required); a folder, or -i given "
       "again, encodes a batch",
       "in.ppm", add_input<EncodeSettings>},
      {{"-F"}, "W,H,N,BITS,s|u[@DX1xDY1:...]",
       "raw input's geometry, as opj_compress: image size W x H, N components of BITS (1..16) signed or "
       "unsigned, each sub-sampled DXxDY (default 1x1; the last repeats); the file holds the components one "
       "after another, each ceil(W/DX) x ceil(H/DY) samples of 1 byte (BITS <= 8) or 2. With a list of "
       "per-component files, -F @DX1xDY1:... gives their sub-sampling",
       "352,288,3,8,u@1x1:2x2:2x2",
       [](EncodeSettings& s, const std::string& v) { s.raw_format = v; return Status::Ok(); }},
      {{"-o"}, "OUT",
       "the file to write: .jp2 (JP2 file), .jph (JPH file, for HT), .j2k, .j2c or .jhc (codestream) (required); "
       "for a batch the folder to write into (made when missing)",
       "out.j2k",
       [](EncodeSettings& s, const std::string& v) { s.out = v; return Status::Ok(); }},
      image_dir_row<EncodeSettings>(
          "encode every image in the folder DIR (as opj_compress), into -o OUTDIR or, without -o, beside them"),
      out_format_row<EncodeSettings>(
          "a batch's output format: j2k (default), j2c, jhc, jp2 or jph, with or without the dot (as opj_compress)",
          "jp2"),
      {{"-quiet"}, "", "print no progress, notes or summary, only errors", "",
       [](EncodeSettings& s, const std::string&) { s.quiet = true; return Status::Ok(); }},
      {{"--whole-image"}, "",
       "read the whole image into memory and transform whole planes. Without it, one file of binary PNM (P5, P6), "
       "PAM (P7), PGX, TIFF (strips or tiles, contiguous or planar, classic or BigTIFF) or raw planes (-F), or a "
       "list of such one-component files (-i a.pgx,b.pgx,c.pgx), is encoded streamed: read in strips through a "
       "line-based DWT, each row of code-blocks coded as it completes, the file written as it is assembled (the "
       "same bytes, in bounded memory); with several tiles (-t) one row of tiles is held at a time, each tile "
       "coded so from it; -q, profiles, batches and other formats (PNG, BMP, ASCII PNM) always use the whole image",
       "", [](EncodeSettings& s, const std::string&) { s.whole_image = true; return Status::Ok(); }},
      {{"-I"}, "", "irreversible path: ICT + 9/7 wavelet + dead-zone quantisation", "",
       [](EncodeSettings& s, const std::string&) { s.codec.reversible = false; return Status::Ok(); }},
      {{"-r"}, "R,R,...",
       "one quality layer per compression ratio (decreasing): the file is at most (bits of the raw image / 8) / R "
       "bytes; 1 = lossless layer. Without -I the reversible 5/3 stream is truncated (lossy 5/3). -r, --bpp and -q "
       "exclude each other",
       "40,20,10", [](EncodeSettings& s, const std::string& v) { return set_rates(s, Rate::kRatio, "-r", v); }},
      {{"--bpp"}, "B,B,...", "one layer per size in bits per pixel of the whole file (increasing)", "0.5,1,2",
       [](EncodeSettings& s, const std::string& v) { return set_rates(s, Rate::kBitsPerPixel, "--bpp", v); }},
      {{"-q"}, "P,P,...", "one layer per PSNR in dB (increasing); 0 = lossless layer", "30,40,0",
       [](EncodeSettings& s, const std::string& v) { return set_rates(s, Rate::kPsnr, "-q", v); }},
      {{"--quant"}, "Q", "expounded (default: a step per subband) or derived (one step, E-5; needs -I)", "derived",
       [](EncodeSettings& s, const std::string& v) {
         if (v != "expounded" && v != "derived")
           return invalid_argument("--quant must be expounded or derived, got '" + v + "'");
         s.codec.derived_quantization = v == "derived";
         return Status::Ok();
       }},
      {{"--step-search"}, "N",
       "HT (-M 64 -I) with -r, --bpp or -q: encode with N base step sizes 2^(k/N) and keep the file with the "
       "smallest error (-q: the smallest file); N times the encode time (default 1: no search)",
       "2",
       [](EncodeSettings& s, const std::string& v) {
         int64_t x;
         if (!parse_int(v, 1, 16, &x)) return invalid_argument("--step-search must be 1..16, got '" + v + "'");
         s.codec.step_search = static_cast<int>(x);
         return Status::Ok();
       }},
      {{"-GuardBits"}, "N", "guard bits 0..7 (default 2)", "1",
       [](EncodeSettings& s, const std::string& v) {
         int64_t x;
         if (!parse_int(v, 0, 7, &x)) return invalid_argument("-GuardBits must be 0..7, got '" + v + "'");
         s.codec.guard_bits = static_cast<int>(x);
         return Status::Ok();
       }},
      {{"-n"}, "N", "number of resolutions (decomposition levels + 1), default 6", "4",
       [](EncodeSettings& s, const std::string& v) {
         int64_t x;
         if (!parse_int(v, 1, 33, &x)) return invalid_argument("-n must be 1..33, got '" + v + "'");
         s.codec.resolutions = static_cast<int>(x);
         s.codec.resolutions_explicit = true;
         return Status::Ok();
       }},
      {{"-b"}, "W,H", "code-block size, powers of two 4..1024, W*H <= 4096, default 64,64", "32,32",
       [](EncodeSettings& s, const std::string& v) {
         int64_t x, y;
         if (!parse_pair(v, 4, 1024, &x, &y) || log2_exact(x) < 0 || log2_exact(y) < 0 || x * y > 4096)
           return invalid_argument("-b needs W,H: powers of two 4..1024 with W*H <= 4096, got '" + v + "'");
         s.codec.xcb = log2_exact(x);
         s.codec.ycb = log2_exact(y);
         return Status::Ok();
       }},
      {{"-t"}, "W,H", "tile size (default: one tile)", "256,256",
       [](EncodeSettings& s, const std::string& v) {
         return set_pair(v, 1, "-t needs W,H", &s.codec.tile_width, &s.codec.tile_height);
       }},
      {{"-T"}, "X,Y", "tile grid origin", "3,5",
       [](EncodeSettings& s, const std::string& v) {
         return set_pair(v, 0, "-T needs X,Y", &s.codec.tile_x0, &s.codec.tile_y0);
       }},
      {{"-d"}, "X,Y", "image origin on the reference grid", "7,9",
       [](EncodeSettings& s, const std::string& v) {
         return set_pair(v, 0, "-d needs X,Y", &s.codec.image_x0, &s.codec.image_y0);
       }},
      {{"-c"}, "[W,H],...",
       "precinct sizes (powers of two), highest resolution first; the last repeats for lower resolutions",
       "[256,256],[128,128]",
       [](EncodeSettings& s, const std::string& v) {
         if (!parse_precincts(v, &s.codec.precincts))
           return invalid_argument("-c needs [W,H],... with powers of two, got '" + v + "'");
         return Status::Ok();
       }},
      {{"-p"}, "ORDER", "progression order: LRCP (default), RLCP, RPCL, PCRL, CPRL", "RPCL",
       [](EncodeSettings& s, const std::string& v) {
         if (!parse_order(v, &s.codec.order))
           return invalid_argument("-p must be LRCP, RLCP, RPCL, PCRL or CPRL, got '" + v + "'");
         return Status::Ok();
       }},
      {{"-M"}, "N",
       "code-block mode switches, a sum of 1 BYPASS, 2 RESET, 4 TERMALL, 8 VSC, 16 ERTERM, 32 SEGMARK (as "
       "opj_compress); or 64 alone: HT code-blocks (HTJ2K, 15444-15, as grk_compress)",
       "63",
       [](EncodeSettings& s, const std::string& v) {
         int64_t x;
         if (!parse_int(v, 0, 64, &x)) {
           return invalid_argument("-M must be 0..63 (Part 1 mode switches) or 64 (HT), got '" + v + "'");
         }
         s.codec.style = codec::CodeBlockStyle::from_byte(static_cast<uint8_t>(x));
         return Status::Ok();
       }},
      {{"--ht"}, "", "HT code-blocks (HTJ2K, 15444-15): the same as -M 64", "",
       [](EncodeSettings& s, const std::string&) {
         s.codec.style = codec::CodeBlockStyle::from_byte(64);
         return Status::Ok();
       }},
      {{"-mct"}, "0|1",
       "colour transform off / on (default: on for 3+ components when components 0..2 share size and "
       "sub-sampling; 1 refuses them otherwise)",
       "0",
       [](EncodeSettings& s, const std::string& v) {
         int64_t x;
         if (!parse_int(v, 0, 1, &x)) return invalid_argument("-mct must be 0 or 1, got '" + v + "'");
         s.codec.mct = static_cast<int>(x);
         return Status::Ok();
       }},
      {{"-SOP"}, "", "write SOP markers", "",
       [](EncodeSettings& s, const std::string&) { s.codec.sop = true; return Status::Ok(); }},
      {{"-EPH"}, "", "write EPH markers", "",
       [](EncodeSettings& s, const std::string&) { s.codec.eph = true; return Status::Ok(); }},
      {{"-TLM"}, "", "write TLM markers", "",
       [](EncodeSettings& s, const std::string&) { s.codec.tlm = true; return Status::Ok(); }},
      {{"-PLT"}, "", "write PLT markers", "",
       [](EncodeSettings& s, const std::string&) { s.codec.plt = true; return Status::Ok(); }},
      {{"-POC"}, "T<t>=<resStart>,<compStart>,<layerEnd>,<resEnd>,<compEnd>,<order>/...",
       "progression changes of tile t (from 1, as opj_compress), written in its tile-part header; packets they "
       "leave out follow in the -p order",
       "T1=0,0,1,6,3,CPRL",
       [](EncodeSettings& s, const std::string& v) {
         return usage_status(parse_poc(v, &s.codec.progression_changes));
       }},
      {{"-TP"}, "R|L|C",
       "divide each tile into tile-parts wherever the progression moves to another resolution (R), layer (L) or "
       "component (C)",
       "R", [](EncodeSettings& s, const std::string& v) { return usage_status(parse_tile_parts(v, &s.codec.tile_parts)); }},
      {{"--ppm"}, "", "(mallat only) packet headers in PPM segments of the main header", "",
       [](EncodeSettings& s, const std::string&) { return set_packed(s, Packed::kPpm); }},
      {{"--ppt"}, "", "(mallat only) packet headers in PPT segments of each tile-part header", "",
       [](EncodeSettings& s, const std::string&) { return set_packed(s, Packed::kPpt); }},
      {{"-ROI"}, "c=C,U=S",
       "max-shift region of interest: every coefficient of component C shifted up by S bit-planes (0..37), RGN "
       "marker (as opj_compress: the whole component is the region)",
       "c=0,U=5", [](EncodeSettings& s, const std::string& v) { return usage_status(parse_roi(v, &s.codec.roi)); }},
      {{"-cinema2K"}, "24|48",
       "2K digital cinema profile (Rsiz 3): 12-bit X'Y'Z' frames up to 2048x1080, CPRL, one tile, 32x32 code-blocks, "
       "9/7 + ICT, at most 5 levels, a tile-part per component, TLM; rate control keeps a frame within 1,302,083 "
       "(24 fps) or 651,041 bytes (48) and each component within 1,041,666 or 520,833. Options that contradict "
       "the profile are errors",
       "24", [](EncodeSettings& s, const std::string& v) {
         return usage_status(parse_cinema(codec::ProfileKind::kCinema2K, v, &s.codec.profile));
       }},
      {{"-cinema4K"}, "",
       "4K digital cinema profile (Rsiz 4, 24 fps; -cinema4K 24 is the same): as -cinema2K 24 for frames up to "
       "4096x2160, at most 6 levels, the highest resolution in its own three tile-parts (POC)",
       "", [](EncodeSettings& s, const std::string&) {
         return usage_status(parse_cinema(codec::ProfileKind::kCinema4K, "24", &s.codec.profile));
       }},
      {{"-IMF"}, "P[,MAINLEVEL=X][,SUBLEVEL=Y][,FRAMERATE=F]",
       "IMF profile (15444-1 Amd 8, Rsiz 0x0400..0x09BB) as opj_compress: P is 2K, 4K, 8K (single tile, 9/7) or "
       "2K_R, 4K_R, 8K_R (5/3; tiles of the image, 1024, 2048 or 4096); 32x32 code-blocks, CPRL, a tile-part per "
       "component, TLM; with FRAMERATE a SUBLEVEL limits each frame's bytes and a MAINLEVEL its samples a second",
       "4K_R,MAINLEVEL=5,SUBLEVEL=2", [](EncodeSettings& s, const std::string& v) {
         return usage_status(parse_imf(v, &s.codec.profile));
       }},
      {{"-threads"}, "N", "Tier-1 threads (default: all cores); output is identical for any N", "2",
       [](EncodeSettings& s, const std::string& v) { return parse_threads(v, &s.codec.threads); }},
      device_row<EncodeSettings>(),
      fsync_row<EncodeSettings>(),
      batch_files_row<EncodeSettings>(kEncodeBatchFilesHelp),
      device_share_row<EncodeSettings>(),
      device_slots_row<EncodeSettings>(),
      device_tile_slots_row<EncodeSettings>(),
      device_rounds_row<EncodeSettings>(),
      device_stages_row<EncodeSettings>(),
      {{"--max-memory"}, "S",
       "refuse an input image whose samples need more than S bytes (K, M or G suffix: 1024-based); default: half "
       "of the machine's memory or ulimit -v. A streamed encode (see --whole-image) holds a few rows, never the "
       "whole image, and is not limited by it",
       "512M", [](EncodeSettings& s, const std::string& v) { return parse_max_memory(v, &s.max_memory); }},
  };
  return table;
}

const std::vector<DecodeOption>& decode_table() {
  static const std::vector<DecodeOption> table = {
      {{"-i"}, "IN",
       "the codestream (.j2k, .j2c, .jhc) or JP2/JPH file to decode (required); a folder, or -i given again, "
       "decodes a batch",
       "in.jp2", add_input<DecodeSettings>},
      {{"-o"}, "OUT",
       "the image to write; its extension picks the format: .png, .tif, .pgm/.ppm/.pnm, .pam, .pgx, .bmp, or raw "
       "planes .raw/.yuv (big-endian), .rawl (required); for a batch the folder to write into (made when missing)",
       "out.ppm", [](DecodeSettings& s, const std::string& v) { s.out = v; return Status::Ok(); }},
      image_dir_row<DecodeSettings>(
          "decode every .j2k, .j2c, .jhc, .jp2 and .jph file in the folder DIR (as opj_decompress), into -o OUTDIR "
          "or, without -o, beside them"),
      out_format_row<DecodeSettings>(
          "a batch's output format (required for a batch): png, tif, ppm, pgm, pam, pgx or bmp, with or without "
          "the dot",
          "png"),
      {{"-r"}, "N", "reduce: discard the N highest resolution levels", "1",
       [](DecodeSettings& s, const std::string& v) {
         int64_t x;
         if (!parse_int(v, 0, 32, &x)) return invalid_argument("-r must be 0..32, got '" + v + "'");
         s.codec.reduce = static_cast<int>(x);
         return Status::Ok();
       }},
      {{"-l"}, "N", "decode only the first N quality layers", "1",
       [](DecodeSettings& s, const std::string& v) {
         int64_t x;
         if (!parse_int(v, 1, 65535, &x)) return invalid_argument("-l must be 1..65535, got '" + v + "'");
         s.codec.layers = static_cast<int>(x);
         return Status::Ok();
       }},
      {{"-t"}, "N", "decode only tile N", "0",
       [](DecodeSettings& s, const std::string& v) {
         int64_t x;
         if (!parse_int(v, 0, 65534, &x)) return invalid_argument("-t must be a tile index, got '" + v + "'");
         s.codec.tile = static_cast<int>(x);
         return Status::Ok();
       }},
      {{"-d"}, "x0,y0,x1,y1",
       "decode only this region of the reference grid (image coordinates at full resolution, also with -r; as "
       "opj_decompress -d): the output is the region alone, cut to the image with a warning; only the tiles and "
       "code-blocks it needs are decoded",
       "0,0,1024,1024",
       [](DecodeSettings& s, const std::string& v) {
         std::vector<int> c;
         if (!parse_ints(v, 0, INT32_MAX, &c) || c.size() != 4)
           return invalid_argument("-d must be x0,y0,x1,y1 (four integers >= 0), got '" + v + "'");
         if (c[0] >= c[2] || c[1] >= c[3])
           return invalid_argument("-d region " + v + " is empty: x0 < x1 and y0 < y1 are needed");
         s.codec.region = dwt::Rect{c[0], c[1], c[2], c[3]};
         return Status::Ok();
       }},
      {{"-c"}, "C,...",
       "decode and write only these components (counted from 0, Csiz at most 16384), in the order listed, as "
       "opj_decompress -c; only their code-blocks are decoded. Under the colour transform (RCT/ICT) asking for "
       "any of 0..2 decodes all three and writes those listed (R, G, B; opj_decompress writes Y, Cb, Cr). A JP2 "
       "file's palette, cdef, ICC profile and sYCC are applied only when every component is listed in order",
       "2,0",
       [](DecodeSettings& s, const std::string& v) {
         if (!parse_ints(v, 0, 16383, &s.codec.components))
           return invalid_argument("-c must be component indices 0..16383 separated by commas, got '" + v + "'");
         return Status::Ok();
       }},
      {{"-p"}, "B[C|S],...",
       "force the precision of components to B bits (0: keep), per component, the last repeating; C clips "
       "(default), S scales (down by a right shift, up by (2^B-1)/(2^b-1)), as opj_decompress",
       "8S,0,12C",
       [](DecodeSettings& s, const std::string& v) {
         auto requests = codec::parse_precision_requests(v);
         if (!requests.ok()) return requests.status();
         s.output.precision = std::move(*requests);
         return Status::Ok();
       }},
      {{"-upsample"}, "", "bring sub-sampled components to the image size (any format)", "",
       [](DecodeSettings& s, const std::string&) { s.output.upsample = true; return Status::Ok(); }},
      {{"-force-rgb"}, "", "write greyscale as RGB (the grey channel three times)", "",
       [](DecodeSettings& s, const std::string&) { s.output.force_rgb = true; return Status::Ok(); }},
      {{"-split-pnm"}, "", "PNM output: one PGM per component, OUT's stem + _<c>.pgm", "",
       [](DecodeSettings& s, const std::string&) { s.output.split_pnm = true; return Status::Ok(); }},
      {{"--whole-image"}, "",
       "decode the whole image into memory, then write it; without it a single file written as PNM (P5/P6), TIFF, PNG, "
       "PGX or raw planes (.raw/.rawl) is decoded and written strip by strip when the stream allows (no -d/-t, no JP2 "
       "palette, cdef, ICC or sYCC, components of one size), in a fraction of the memory, the same bytes, if it uses "
       "the 5/3, has 64 M decoded samples or more, or is decoded with 1 or 2 threads (see --streamed)", "",
       [](DecodeSettings& s, const std::string&) { s.output.whole_image = true; return Status::Ok(); }},
      {{"--streamed"}, "",
       "decode strip by strip whatever the stream (where the stream and format allow); without it, a stream with a 9/7 "
       "component under 64 M samples takes the whole-image path at 3 threads or more (there it is the faster: the "
       "streamed inverse DWT runs on one thread), every other the streamed path (the faster, holding no whole-image "
       "planes)", "",
       [](DecodeSettings& s, const std::string&) { s.output.streamed = true; return Status::Ok(); }},
      {{"--icc-to-srgb"}, "", "apply the file's restricted ICC profile: sRGB samples, no profile (the default for "
       "formats other than PNG and TIFF, which keep the profile)", "",
       [](DecodeSettings& s, const std::string&) { s.output.icc_to_srgb = true; return Status::Ok(); }},
      {{"--keep-samples"}, "", "write the samples as decoded, never converted to sRGB by the file's ICC profile", "",
       [](DecodeSettings& s, const std::string&) { s.output.keep_samples = true; return Status::Ok(); }},
      {{"--strict"}, "", "validate: refuse what Part 1 forbids but encoders write (coding passes below the last "
       "bit-plane, zero bit-planes beyond Mb, too few QCD step sizes, a second ihdr, pclr without cmap, a cdef "
       "naming a channel twice) and, unless -allow-partial is given too, a stream cut short; by default each is "
       "decoded as OpenJPEG does, with one warning per kind", "",
       [](DecodeSettings& s, const std::string&) {
         s.codec.strict = true;
         if (!s.partial_given) s.codec.allow_partial = false;
         return Status::Ok();
       }},
      {{"-allow-partial"}, "",
       "decode a stream cut short or with damaged packets as far as it goes, with a warning (the default; with "
       "--strict, keeps that)", "",
       [](DecodeSettings& s, const std::string&) {
         s.partial_given = true;
         s.codec.allow_partial = true;
         return Status::Ok();
       }},
      {{"-quiet"}, "", "print no warnings, notes, progress or summary, only errors", "",
       [](DecodeSettings& s, const std::string&) { s.quiet = true; return Status::Ok(); }},
      {{"-threads"}, "N",
       "threads for decoding and for the conversion to PNM (default: all cores); output is identical for any N", "2",
       [](DecodeSettings& s, const std::string& v) { return parse_threads(v, &s.codec.threads); }},
      device_row<DecodeSettings>(),
      fsync_row<DecodeSettings>(),
      batch_files_row<DecodeSettings>(kDecodeBatchFilesHelp),
      device_share_row<DecodeSettings>(),
      device_slots_row<DecodeSettings>(),
      device_tile_slots_row<DecodeSettings>(),
      device_rounds_row<DecodeSettings>(),
      device_stages_row<DecodeSettings>(kDecodeDeviceStagesHelp),
      {{"--max-memory"}, "S",
       "refuse a stream whose headers need more memory than S bytes (K, M or G suffix: 1024-based); default: half "
       "of the machine's memory or ulimit -v",
       "1G", [](DecodeSettings& s, const std::string& v) { return parse_max_memory(v, &s.codec.max_memory); }},
  };
  return table;
}

}  // namespace

CommandOptions encode_options() { return command_options<EncodeSettings>("encode", encode_table()); }
CommandOptions decode_options() { return command_options<DecodeSettings>("decode", decode_table()); }

namespace {

bool is_codestream_name(const std::filesystem::path& p) {
  return output_container(p.string()) != codec::Container::kUnknown;
}
bool is_image_name(const std::filesystem::path& p) { return io::format_from_extension(p) != io::Format::kUnknown; }

// What is wrong with the arguments of the single-file form (one -i file, -o
// not a folder); empty when nothing is.
std::string single_file_problem(const BatchRequest& request) {
  if (request.inputs.empty() || request.output.empty()) return "-i IN and -o OUT are required";
  if (!request.out_format.empty()) return "-OutFor is a batch's output format; for one file OUT's extension picks it";
  return "";
}

// encode's steps for one file, which the single-file command and the batch
// both run (batch.h), a file coded with its lane's options (batch_lanes.h).
// `lanes` stay alive while they run.
BatchSteps encode_steps(const EncodeSettings& s, std::span<const codec::EncodeOptions> lanes) {
  BatchSteps steps;
  steps.read = [&s](BatchItem& item) {
    auto image = read_encode_input(item.file->in.string(), s.raw_format, s.max_memory);
    if (!image.ok()) {
      const bool limit = image.status().code() == ErrorCode::kResourceLimit;
      return Status(image.status().code(), image.status().message() + (limit ? " (set it with --max-memory)" : ""));
    }
    item.image = std::move(*image);
    item.pixels = static_cast<uint64_t>(item.image.width()) * static_cast<uint64_t>(item.image.height());
    return Status::Ok();
  };
  steps.code = [lanes](BatchItem& item) {
    codec::EncodeReport report;
    auto bytes = codec::encode(item.image, lanes[static_cast<size_t>(item.lane)], &report);
    if (!bytes.ok()) return bytes.status().with_context(item.file->in.string());
    for (const auto& n : report.notes) item.messages.push_back("mallat encode: note: " + item.file->in.string() + ": " + n);
    item.image = Image();
    item.bytes = std::move(*bytes);
    return Status::Ok();
  };
  steps.write = [](BatchItem& item) { return io::write_file_atomically(item.file->out, item.bytes); };
  return steps;
}

// One file encoded streamed (tools/encode_streamed.h) where the input and
// options allow and --whole-image is not given: its exit status, else none
// (an input that cannot be opened so goes the whole-image way, which gives
// its error).
std::optional<int> encode_one_streamed(const EncodeSettings& s, const codec::EncodeOptions& opt) {
  if (s.whole_image) return std::nullopt;
  const BatchFile file{s.batch.inputs[0], s.out};
  Result<std::unique_ptr<io::StripReader>> strips = open_encode_strips(file.in.string(), s.raw_format);
  if (!strips.ok() || !*strips || !codec::why_not_streamed((*strips)->layout(), opt).empty()) return std::nullopt;
  return run_one("encode", file, encode_streamed_steps(opt, std::move(*strips)), s.quiet);
}

}  // namespace

Result<codec::EncodeOptions> parse_encode_codec_options(const Args& args, bool* whole_tiles) {
  EncodeSettings s;
  MALLAT_ASSIGN_OR_RETURN(const Parsed parsed, parse_options(encode_table(), args, s));
  if (parsed == Parsed::kHelp) return invalid_argument("--help among the encode options");
  if (!s.batch.inputs.empty() || !s.out.empty() || !s.batch.image_dir.empty())
    return invalid_argument("-i, -o and -ImgDir are not taken here: the files are the arguments");
  if (s.codec.derived_quantization && s.codec.reversible) return invalid_argument("--quant derived needs -I");
  if (whole_tiles) *whole_tiles = device_whole_tiles(s.device_request, false);
  s.codec.container = codec::Container::kCodestream;
  if (!s.batch.out_format.empty()) {
    std::string ext = s.batch.out_format;
    if (ext[0] != '.') ext.insert(ext.begin(), '.');  // not insert(0, "."): GCC 12 warns wrongly (-Wrestrict)
    s.codec.container = output_container(ext);
    if (s.codec.container == codec::Container::kUnknown)
      return invalid_argument("-OutFor must be j2k, j2c, jhc, jp2 or jph, got '" + s.batch.out_format + "'");
  }
  return s.codec;
}

// opj_compress spells the 4K profile -cinema4K alone (24 frames a second is
// the only rate DCI gives 4K); "-cinema4K 24", as the 2K flag is written, is
// taken too.
Args without_cinema4k_rate(Args args) {
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "-cinema4K" && args[i + 1] == "24") args.erase(args.begin() + static_cast<std::ptrdiff_t>(i + 1));
  return args;
}

int encode_main(const Args& given) {
  auto usage_error = [](const std::string& m) { return fail("encode", m + " (see --help)", 2); };
  const Args args = without_cinema4k_rate(given);
  EncodeSettings s;
  Result<Parsed> parsed = parse_options(encode_table(), args, s);
  if (!parsed.ok()) return usage_error(parsed.status().message());
  if (*parsed == Parsed::kHelp) {
    std::fputs(help_text(kEncodeIntro, option_texts(encode_table())).c_str(), stdout);
    return 0;
  }
  if (s.codec.profile.kind != codec::ProfileKind::kNone) {
    // A profile's parameters under the options given, whatever their order:
    // parse again over them; encode() refuses any that contradict it.
    EncodeSettings over;
    over.codec = codec::profile_options(s.codec.profile, codec::EncodeOptions{});
    parsed = parse_options(encode_table(), args, over);
    if (!parsed.ok()) return usage_error(parsed.status().message());
    s = std::move(over);
  }
  io::set_durable_writes(s.fsync);
  codec::EncodeOptions& opt = s.codec;
  if (opt.derived_quantization && opt.reversible) return usage_error("--quant derived needs -I");
  // The device starts now, while the input is read (device_placement.h).
  const bool asked_cuda = opt.dwt_backend == dwt::BackendKind::kCuda;
  s.batch_files = batch_files_for(s.batch_files, opt.dwt_backend != dwt::BackendKind::kCpu &&
                                                     device_whole_tiles(s.device_request, true));
  entropy::DeviceCoderOptions device;
  const std::string& first_input = !s.batch.inputs.empty() ? s.batch.inputs[0] : s.batch.image_dir;
  if (!first_input.empty()) device.expected_samples = expected_samples_hint(first_input);
  apply_device_request(s.device_request, is_batch(s.batch), s.batch_files, device);
  // A batch whose every tile goes to the device whole leaves the hybrid
  // coder nothing to code, so its start-up makes no room for a file's
  // blocks (host memory is pinned at about 0.5 ms a MB, beside the lanes'
  // own start-ups).
  if (is_batch(s.batch) && device_whole_tiles(s.device_request, true) &&
      codec::device_takes_every_tile(opt.style.ht, !opt.roi.empty())) {
    device.expected_samples = 0;
  }
  // One file too small to gain what CUDA's start-up costs the CPU stages
  // runs on the CPU alone (device_placement.h); --device-share asks for the
  // device whatever the size.
  const bool start =
      is_batch(s.batch) || s.device_request.share >= 0 || device_pays_for_one_file(device.expected_samples);
  if (Status placed = place_encode_device(opt, device, start); !placed.ok()) return fail("encode", placed.message());
  if (asked_cuda && !start && !s.quiet)
    std::fprintf(stderr, "mallat encode: note: one file of this size is coded on the CPU (same output): CUDA's "
                         "start-up costs more than the device saves; --device-share F uses the device anyway\n");
  s.batch.output = s.out;
  if (!is_batch(s.batch)) {
    if (const std::string problem = single_file_problem(s.batch); !problem.empty()) return usage_error(problem);
    opt.container = output_container(s.out);
    if (opt.container == codec::Container::kUnknown) return usage_error(bad_output_extension(s.out));
    const BatchFile file{s.batch.inputs[0], s.out};
    // --device-stages all for one file: its tiles go to the device whole
    // (the device started above), so the whole image is read.
    if (opt.block_encoder_instance && device_whole_tiles(s.device_request, false)) {
      opt.device_tile_context = codec::start_device_tile_context();
      keep_until_exit(opt.device_tile_context);
      s.whole_image = true;
    }
    const std::optional<int> streamed = encode_one_streamed(s, opt);
    const int status = streamed ? *streamed : run_one("encode", file, encode_steps(s, {&opt, 1}), s.quiet);
    note_device_fallback("encode", opt, asked_cuda, s.quiet);
    return status;
  }
  Result<BatchPlan> plan = plan_batch(s.batch, is_image_name, "j2k");
  if (!plan.ok()) return usage_error(plan.status().message());
  opt.container = output_container(plan->files[0].out.string());
  if (opt.container == codec::Container::kUnknown)
    return usage_error("-OutFor must be j2k, j2c, jhc, jp2 or jph, got '" + s.batch.out_format + "'");
  // Tier-1 on the device, made once for the batch; a DWT backend per lane.
  Result<std::vector<codec::EncodeOptions>> lanes =
      encode_lanes(opt, s.batch_files, device_whole_tiles(s.device_request, true), s.device_request.tile_slots);
  if (!lanes.ok()) return fail("encode", lanes.status().message());
  const int status = run_batch("encode", *plan, encode_steps(s, *lanes), s.quiet, s.batch_files,
                               files_ahead_for(!lanes->empty() && (*lanes)[0].device_tile_context != nullptr));
  note_device_fallback("encode", opt, asked_cuda, s.quiet);
  return status;
}

int decode_main(const Args& args) {
  auto usage_error = [](const std::string& m) { return fail("decode", m + " (see --help)", 2); };
  DecodeSettings s;
  Result<Parsed> parsed = parse_options(decode_table(), args, s);
  if (!parsed.ok()) return usage_error(parsed.status().message());
  if (*parsed == Parsed::kHelp) {
    std::fputs(help_text(kDecodeIntro, option_texts(decode_table())).c_str(), stdout);
    return 0;
  }
  s.output.threads = s.codec.threads;
  io::set_durable_writes(s.fsync);
  // A batch decodes Part 1 code-blocks on the device and the CPU together;
  // one file on the CPU alone (device_placement.h).
  const bool asked_cuda = s.codec.dwt_backend == dwt::BackendKind::kCuda;
  if (s.batch_files <= 0) {
    s.batch_files = s.codec.dwt_backend != dwt::BackendKind::kCpu && device_whole_tiles(s.device_request, true)
                        ? kWholeTileDecodeBatchFiles
                        : kDefaultBatchFiles;
  }
  entropy::DeviceCoderOptions device;
  apply_device_request(s.device_request, is_batch(s.batch), s.batch_files, device);
  if (Status placed = place_decode_device(s.codec, device, is_batch(s.batch)); !placed.ok())
    return fail("decode", placed.message());
  if (asked_cuda && !is_batch(s.batch) && !s.quiet)
    std::fprintf(stderr, "mallat decode: note: one file is decoded on the CPU (same output): CUDA's start-up costs "
                         "more than the device saves; a batch of files uses the device\n");
  s.batch.output = s.out;
  if (!is_batch(s.batch)) {
    if (const std::string problem = single_file_problem(s.batch); !problem.empty()) return usage_error(problem);
    if (io::format_from_extension(s.out) == io::Format::kUnknown)
      return usage_error("cannot tell the output format from '" + s.out + "'");
    const BatchFile file{s.batch.inputs[0], s.out};
    if (const std::optional<int> rc = decode_one_streamed(file, s.codec, s.output, s.quiet)) return *rc;
    return run_one("decode", file, decode_steps(s.output, s.codec.reduce, {&s.codec, 1}), s.quiet);
  }
  Result<BatchPlan> plan = plan_batch(s.batch, is_codestream_name, "");
  if (!plan.ok()) return usage_error(plan.status().message());
  if (io::format_from_extension(plan->files[0].out) == io::Format::kUnknown)
    return usage_error("-OutFor must name an image format (png, tif, ppm, pgm, pam, pgx, bmp), got '" +
                       s.batch.out_format + "'");
  Result<std::vector<codec::DecodeOptions>> lanes =
      decode_lanes(s.codec, s.batch_files, device_whole_tiles(s.device_request, true), s.device_request.tile_slots);
  if (!lanes.ok()) return fail("decode", lanes.status().message());
  const int status = run_batch("decode", *plan, decode_steps(s.output, s.codec.reduce, *lanes), s.quiet, s.batch_files);
  note_decode_device_fallback(s.codec, asked_cuda, s.quiet);
  return status;
}

}  // namespace mallat::tools
