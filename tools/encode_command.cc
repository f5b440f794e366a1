// mallat encode, with opj_compress's option names where the meaning is the
// same. Its options are one table (tools/option_table.h) that both the
// parser and --help read; they fill the codec's options (plain values) and
// the engine's (codec/api/engine.h), which decides what runs where.
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "codec/codec.h"
#include "codec/api/engine.h"
#include "engine/placement.h"
#include "io/file.h"
#include "io/image_io.h"
#include "io/raw.h"
#include "tools/batch.h"
#include "tools/codec_command_rows.h"
#include "tools/commands.h"
#include "tools/encode_feature_args.h"
#include "tools/encode_input.h"
#include "tools/encode_streamed.h"
#include "tools/engine_options.h"
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
  EngineOptions engine;     // --device, --batch-files, --device-share, --device-slots, ... (engine_options.h)
};

using EncodeOption = Option<EncodeSettings>;
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
       "coded so from it; each such file of a batch on the CPU (--device cpu) is too, on its lane's threads; -q, "
       "profiles, batches with a GPU, a tiled image that goes to a GPU whole (--device) and other formats "
       "(PNG, BMP, ASCII PNM) always use the whole image (one tile that goes to a GPU whole is sent up in strips)",
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
       "smallest error (-q: the smallest file at the target's PSNR), then, with -r or --bpp, move each "
       "resolution's steps by 2^(+-1/4) and 2^(+-1/8) from the best, kept by the same rule (not with --quant "
       "derived); up to N + 4 x resolutions encodes "
       "(default 1: no search); each encode in the --ht-rate mode given (auto: full under -r or --bpp, which "
       "also codes each plane at a second exponent-bound lowering)",
       "2",
       [](EncodeSettings& s, const std::string& v) {
         int64_t x;
         if (!parse_int(v, 1, 16, &x)) return invalid_argument("--step-search must be 1..16, got '" + v + "'");
         s.codec.step_search = static_cast<int>(x);
         return Status::Ok();
       }},
      {{"--ht-rate"}, "MODE",
       "HT (-M 64) with -r, --bpp or -q: auto (default) is estimated, or full under --step-search with -r or "
       "--bpp. estimated estimates each code-block's cleanup pass at every bit-plane from counts taken while quantising, chooses one rate-distortion slope for the target on those "
       "estimates, and codes each block at the plane it reaches and, where the estimate is not clear, one "
       "neighbour plane (the coarser with SigProp and MagRef), coding a finer plane where those cannot come "
       "within 0.5% of a size target; rate allocation chooses among what was coded. PNM, PAM, PGX, TIFF and raw "
       "input is encoded streamed (without -q), each block's quantised coefficients kept until the planes are "
       "chosen, past 256 MiB in a temporary file. "
       "full codes every block at every plane and lets rate allocation choose among all of them (slower, a "
       "little closer in quality). steps (with -I and -r or --bpp) is estimated with each block also estimated at "
       "a base step 2^-1/2 times as large, and the steps whose estimates leave less error at the target coded "
       "(closer to --step-search 4's quality in one encode, about a fifth to a third slower than estimated)",
       "full",
       [](EncodeSettings& s, const std::string& v) {
         using HtRate = codec::EncodeOptions::HtRate;
         if (v != "auto" && v != "estimated" && v != "full" && v != "steps")
           return invalid_argument("--ht-rate must be auto, estimated, steps or full, got '" + v + "'");
         s.codec.ht_rate = v == "full"    ? HtRate::kEveryPlane
                           : v == "auto"  ? HtRate::kAuto
                           : v == "steps" ? HtRate::kEstimatedSteps
                                          : HtRate::kEstimated;
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
      {{"-threads", "--threads"}, "N",
       "threads the encode uses (default: all cores): one file encodes on all of them, a batch on the CPU encodes a "
       "file per thread; output is identical for any N", "2",
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

}  // namespace

CommandOptions encode_options() { return command_options<EncodeSettings>("encode", encode_table()); }

namespace {

bool is_image_name(const std::filesystem::path& p) { return io::format_from_extension(p) != io::Format::kUnknown; }

// The encoder's notes on `item`'s file, for the user.
void add_notes(BatchItem& item, const codec::EncodeReport& report) {
  for (const auto& n : report.notes) item.messages.push_back("mallat encode: note: " + item.file->in.string() + ": " + n);
}

// The reader of `path` where it is encoded strip by strip (its format read
// in strips, options that allow it, no --whole-image), else null.
std::unique_ptr<io::StripReader> streamed_reader(const EncodeSettings& s, const std::string& path,
                                                 const codec::EncodeOptions& opt) {
  if (s.whole_image) return nullptr;
  Result<std::unique_ptr<io::StripReader>> strips = open_encode_strips(path, s.raw_format);
  if (!strips.ok() || !*strips || !codec::why_not_streamed((*strips)->layout(), opt).empty()) return nullptr;
  return std::move(*strips);
}

// encode's steps for one file (batch.h), coded through `engine`; `s`,
// `engine` and `opt` stay alive while they run.
// Reads `item`'s file into its image, its samples in `form`.
Status read_item(const EncodeSettings& s, BatchItem& item, io::SampleForm form) {
  auto image = read_encode_input(item.file->in.string(), s.raw_format, s.max_memory, form);
  if (!image.ok()) {
    const bool limit = image.status().code() == ErrorCode::kResourceLimit;
    return Status(image.status().code(), image.status().message() + (limit ? " (set it with --max-memory)" : ""));
  }
  item.image = std::move(*image);
  item.pixels = static_cast<uint64_t>(item.image.width()) * static_cast<uint64_t>(item.image.height());
  return Status::Ok();
}

BatchSteps encode_steps(const EncodeSettings& s, Engine& engine, const codec::EncodeOptions& opt,
                        io::SampleForm form = io::SampleForm::kInt32) {
  BatchSteps steps;
  steps.read = [&s, form](BatchItem& item) { return read_item(s, item, form); };
  steps.code = [&engine, &opt](BatchItem& item) {
    codec::EncodeReport report;
    auto bytes = engine.encode(item.image, opt, &report);
    if (!bytes.ok()) return bytes.status().with_context(item.file->in.string());
    add_notes(item, report);
    item.image = Image();
    item.bytes = std::move(*bytes);
    return Status::Ok();
  };
  steps.write = [](BatchItem& item) { return io::write_file_atomically(item.file->out, item.bytes); };
  return steps;
}

// A batch through the engine: each file read by encode_steps' read, coded
// with `opt`, written and reported in order (batch.h).
int encode_batch(const EncodeSettings& s, Engine& engine, const codec::EncodeOptions& opt, const BatchPlan& plan) {
  BatchRun run("encode", plan, s.quiet);
  if (!run.begin()) return 1;
  const BatchSteps steps = encode_steps(s, engine, opt);
  std::vector<EncodeItem> items(plan.files.size());
  for (size_t i = 0; i < items.size(); ++i) items[i].path = plan.files[i].in.string();
  EncodeHooks hooks;
  hooks.read = [&](size_t i) -> Result<Image> {
    BatchItem& item = run.item(i);
    MALLAT_RETURN_IF_ERROR(steps.read(item));
    return std::move(item.image);
  };
  hooks.read_stored = [&](size_t i) -> Result<Image> {
    BatchItem& item = run.item(i);
    MALLAT_RETURN_IF_ERROR(read_item(s, item, io::SampleForm::kStoredWhereCheap));
    return std::move(item.image);
  };
  hooks.write = [&](size_t i, EncodeResult& result) {
    BatchItem& item = run.item(i);
    add_notes(item, result.report);
    const Status written = io::write_file_atomically(item.file->out, result.bytes);
    result.bytes = std::vector<uint8_t>();
    return written;
  };
  // On the CPU a file that one file's rule would encode strip by strip
  // (streamed_reader) is: opened in its read step, encoded on its lane
  // straight into its file.
  std::vector<std::unique_ptr<io::StripReader>> readers(items.size());
  hooks.streams = [&](size_t i) {
    readers[i] = streamed_reader(s, items[i].path, opt);
    if (!readers[i]) return false;
    const Image& layout = readers[i]->layout();
    run.item(i).pixels = static_cast<uint64_t>(layout.width()) * static_cast<uint64_t>(layout.height());
    return true;
  };
  hooks.stream = [&](size_t i, const EncodeHooks::StreamedEncode& encode) {
    const Status status = write_streamed_encode(plan.files[i], *readers[i], encode);
    readers[i].reset();
    return status;
  };
  hooks.done = [&](size_t i, EncodeResult& result) {
    if (result.streamed) add_notes(run.item(i), result.report);
    run.finished(i, result.status);
  };
  engine.encode_batch(items, opt, hooks);
  return run.end();
}

// The reader of one file to encode streamed (tools/encode_streamed.h) where
// the input and options allow and --whole-image is not given, else null (an
// input that cannot be opened so goes the whole-image way, which gives its
// error). Opened before the placement, which depends on it.
std::unique_ptr<io::StripReader> streamed_input(const EncodeSettings& s, const codec::EncodeOptions& opt) {
  return s.batch.inputs.size() == 1 ? streamed_reader(s, s.batch.inputs[0], opt) : nullptr;
}

}  // namespace

Result<EncodeCommandOptions> parse_encode_command_options(const Args& args) {
  EncodeSettings s;
  MALLAT_ASSIGN_OR_RETURN(const Parsed parsed, parse_options(encode_table(), args, s));
  if (parsed == Parsed::kHelp) return invalid_argument("--help among the encode options");
  if (!s.batch.inputs.empty() || !s.out.empty() || !s.batch.image_dir.empty())
    return invalid_argument("-i, -o and -ImgDir are not taken here: the files are the arguments");
  if (s.codec.derived_quantization && s.codec.reversible) return invalid_argument("--quant derived needs -I");
  s.codec.container = codec::Container::kCodestream;
  if (!s.batch.out_format.empty()) {
    std::string ext = s.batch.out_format;
    if (ext[0] != '.') ext.insert(ext.begin(), '.');  // not insert(0, "."): GCC 12 warns wrongly (-Wrestrict)
    s.codec.container = output_container(ext);
    if (s.codec.container == codec::Container::kUnknown)
      return invalid_argument("-OutFor must be j2k, j2c, jhc, jp2 or jph, got '" + s.batch.out_format + "'");
  }
  return EncodeCommandOptions{s.codec, s.engine};
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
  // The engine decides what runs where and starts the device now, while the
  // input is read (engine/placement.h).
  const bool asked_cuda = s.engine.device == Device::kCuda;
  Engine engine(command_engine_options(s.engine, opt.threads));
  const std::string& first_input = !s.batch.inputs.empty() ? s.batch.inputs[0] : s.batch.image_dir;
  BatchRequest as_run = s.batch;
  as_run.output = s.out;
  std::unique_ptr<io::StripReader> strips = is_batch(as_run) ? nullptr : streamed_input(s, opt);
  Workload work{is_batch(s.batch), first_input.empty() ? 0 : engine::expected_samples_of(first_input),
                strips != nullptr};
  // A batch's files, listed before the placement, which decides by them
  // whether the device pays (engine/placement.h).
  std::optional<BatchPlan> plan;
  if (is_batch(as_run)) {
    Result<BatchPlan> planned = plan_batch(as_run, is_image_name, "j2k");
    if (!planned.ok()) return usage_error(planned.status().message());
    plan = std::move(*planned);
    if (work.batch) work.items = plan->files.size();
  }
  Result<Placement> placed = engine.prepare_encode(opt, work);
  if (!placed.ok()) return fail("encode", placed.status().message());
  if (asked_cuda && !placed->device && !work.batch && !s.quiet)
    std::fprintf(stderr, "mallat encode: note: one file of this size is coded on the CPU (same output): CUDA's "
                         "start-up costs more than the device saves; --device-stages all or --device-share F uses "
                         "the device anyway\n");
  if (asked_cuda && !placed->device && work.batch && !s.quiet) {
    // Why engine::device_pays_for_batch said no.
    const char* why = !opt.style.ht ? "each image is too small for the device to pay for its copies"
                      : engine::ht_target_of(opt) == engine::HtTarget::kCodedAgainOnHost
                          ? "HT rate control codes the blocks again from the host's indices (the device keeps them "
                            "only for rate control by estimates at the nominal steps, one tile an image)"
                          : "with HT they are too few samples to pay for CUDA's start-up";
    std::fprintf(stderr,
                 "mallat encode: note: these %zu files are coded on the CPU (same output): %s; "
                 "--device-stages all uses the device anyway\n",
                 plan->files.size(), why);
  }
  // An -o folder makes a batch of one -i file too (batch.h).
  s.batch.output = s.out;
  if (!is_batch(s.batch)) {
    if (const std::string problem = single_file_problem(s.batch); !problem.empty()) return usage_error(problem);
    opt.container = output_container(s.out);
    if (opt.container == codec::Container::kUnknown) return usage_error(bad_output_extension(s.out));
    const BatchFile file{s.batch.inputs[0], s.out};
    // A tile that goes to the device whole is fed there from the strips
    // where the encode is one tile (codec::streamed_encode_feeds_device);
    // otherwise the whole image is read, its samples at their stored width
    // where that is cheap, as a batch's.
    if (placed->whole_tiles && strips && !codec::streamed_encode_feeds_device(strips->layout(), opt)) strips.reset();
    const io::SampleForm form = placed->whole_tiles ? io::SampleForm::kStoredWhereCheap : io::SampleForm::kInt32;
    ReopenStrips reopen;
    if (placed->whole_tiles) reopen = [&s, path = file.in.string()] { return open_encode_strips(path, s.raw_format); };
    const int status =
        strips ? run_one("encode", file, encode_streamed_steps(engine, opt, std::move(strips), reopen), s.quiet)
               : run_one("encode", file, encode_steps(s, engine, opt, form), s.quiet);
    note_device_fallback("encode", engine.encode_device_status(), asked_cuda, s.quiet);
    return status;
  }
  opt.container = output_container(plan->files[0].out.string());
  if (opt.container == codec::Container::kUnknown)
    return usage_error("-OutFor must be j2k, j2c, jhc, jp2 or jph, got '" + s.batch.out_format + "'");
  const int status = encode_batch(s, engine, opt, *plan);
  note_device_fallback("encode", engine.encode_device_status(), asked_cuda, s.quiet);
  return status;
}

}  // namespace mallat::tools
