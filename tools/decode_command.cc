// mallat decode, with opj_decompress's option names where the meaning is
// the same. Its options are one table (tools/option_table.h) that both the
// parser and --help read; they fill the codec's options (plain values), the
// output policy's (decode_output.h) and the engine's (codec/api/engine.h),
// which decides what runs where.
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "codec/codec.h"
#include "codec/api/engine.h"
#include "codec/jp2/jp2_colour.h"
#include "engine/placement.h"
#include "io/file.h"
#include "io/image_io.h"
#include "tools/batch.h"
#include "tools/codec_command_rows.h"
#include "tools/commands.h"
#include "tools/decode_output.h"
#include "tools/decode_steps.h"
#include "tools/decode_streamed.h"
#include "tools/engine_options.h"
#include "tools/option_values.h"

namespace mallat::tools {
namespace {

// The text --help prints before the option list.
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
    ".jpc, .jhc, .jp2 and .jph file of the folder decoded to OUTDIR/<stem>.EXT, as for one file.\n";

// What decode's options fill in.
struct DecodeSettings {
  std::string out;
  BatchRequest batch;  // -i (one or more), -ImgDir, -OutFor
  codec::DecodeOptions codec;
  DecodeOutputOptions output;
  bool partial_given = false;  // -allow-partial, whatever the order of --strict
  bool quiet = false;          // -quiet
  bool fsync = false;          // --fsync
  EngineOptions engine;        // --device, --batch-files, --device-share, --device-slots, ... (engine_options.h)
};

using DecodeOption = Option<DecodeSettings>;

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
          "decode every .j2k, .j2c, .jpc, .jhc, .jp2 and .jph file in the folder DIR (as opj_decompress), into -o OUTDIR "
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
      {{"--png-level"}, "0-9",
       "PNG output: zlib's compression level, 0 (stored, no compression) to 9 (smallest file, slowest); default 1 "
       "(fast, still compressed; libpng's own default is 6, with --png-filter all)", "6",
       [](DecodeSettings& s, const std::string& v) {
         int64_t level = 0;
         if (!parse_int(v, 0, 9, &level)) return invalid_argument("--png-level must be 0 to 9, got '" + v + "'");
         s.output.png.level = static_cast<int>(level);
         return Status::Ok();
       }},
      {{"--png-filter"}, "F",
       "PNG output: the row filter, none, sub, up, average, paeth, or all (libpng picks one per row: smaller "
       "files, several times slower); default sub", "paeth",
       [](DecodeSettings& s, const std::string& v) {
         static const std::pair<const char*, io::PngFilter> kFilters[] = {
             {"none", io::PngFilter::kNone}, {"sub", io::PngFilter::kSub},     {"up", io::PngFilter::kUp},
             {"average", io::PngFilter::kAverage}, {"paeth", io::PngFilter::kPaeth}, {"all", io::PngFilter::kAll}};
         for (const auto& [name, filter] : kFilters) {
           if (v == name) {
             s.output.png.filter = filter;
             return Status::Ok();
           }
         }
         return invalid_argument("--png-filter must be none, sub, up, average, paeth or all, got '" + v + "'");
       }},
      {{"--whole-image"}, "",
       "decode the whole image into memory, then write it; without it a single file written as PNM (P5/P6), TIFF, PNG, "
       "PGX or raw planes (.raw/.rawl) is decoded and written strip by strip when the stream allows (no -d/-t, no JP2 "
       "palette, cdef, ICC or sYCC, components of one size), in a fraction of the memory, the same bytes, if it uses "
       "the 5/3, has 64 M decoded samples or more, or is decoded with 1 or 2 threads (see --streamed); so is each "
       "file of a batch on the CPU (--device cpu), by the same rule at its lane's threads (one by default)", "",
       [](DecodeSettings& s, const std::string&) { s.output.whole_image = true; return Status::Ok(); }},
      {{"--streamed"}, "",
       "decode strip by strip whatever the stream (where the stream and format allow); without it, a stream with a 9/7 "
       "component under 64 M samples takes the whole-image path at 3 threads or more (there it is the faster: the "
       "streamed inverse DWT runs on one thread), every other the streamed path (the faster, holding no whole-image "
       "planes); with --device cuda it also keeps one large Part 1 file in strips on the CPU rather than whole on the "
       "GPU", "",
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
      {{"-threads", "--threads"}, "N",
       "threads the decode uses (default: all cores): one file decodes on all of them, a batch on the CPU decodes a "
       "file per thread; output is identical for any N", "2",
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

CommandOptions decode_options() { return command_options<DecodeSettings>("decode", decode_table()); }

namespace {

// What encode writes (output_container), and .jpc, the codestream name
// other codecs write; a file is read by its content, whatever its name.
bool is_codestream_name(const std::filesystem::path& p) {
  return output_container(p.string()) != codec::Container::kUnknown || ends_with_ci(p.string(), ".jpc");
}

// A batch through the engine: each file read whole, decoded with `opt` (a
// PNM's raster where the image allows; no JP2 colour for raw planes),
// written through the output policy and reported in order (batch.h).
int decode_batch(const DecodeSettings& s, Engine& engine, const BatchPlan& plan) {
  BatchRun run("decode", plan, s.quiet);
  if (!run.begin()) return 1;
  std::vector<DecodeItem> items(plan.files.size());
  for (size_t i = 0; i < items.size(); ++i) {
    items[i].path = plan.files[i].in.string();
    items[i].raster = writes_pnm(plan.files[i].out);
    items[i].apply_jp2_header = !writes_raw_planes(plan.files[i].out);
  }
  // The decoder's warnings come first, whether or not the file decoded.
  std::vector<char> warned(items.size(), 0);
  const auto warn = [&](size_t i, const DecodeResult& result) {
    if (warned[i]) return;
    warned[i] = 1;
    for (const auto& w : result.report.warnings)
      run.item(i).messages.push_back("mallat decode: warning: " + items[i].path + ": " + w);
  };
  DecodeHooks hooks;
  hooks.write = [&](size_t i, DecodeResult& result) {
    warn(i, result);
    BatchItem& item = run.item(i);
    item.image = std::move(result.image);
    item.raster = std::move(result.raster);
    item.pixels = static_cast<uint64_t>(item.image.width()) * static_cast<uint64_t>(item.image.height());
    const Status written = write_decoded(s.output, s.codec.reduce, item);
    item.image = Image();
    result.raster = std::move(item.raster);  // written: the engine reuses its memory
    item.raster = std::vector<uint8_t>();
    return written;
  };
  // On the CPU a file whose format and header allow it is decoded strip by
  // strip straight into its file, on its lane's threads (the rule of one
  // file: decode_streamed.h). Its notes follow the decoder's warnings, as a
  // file written whole.
  std::vector<std::vector<std::string>> streamed_notes(items.size());
  hooks.stream = [&](size_t i, std::span<const uint8_t> data, const DecodeHooks::StreamedDecode& decode) {
    const BatchFile& file = plan.files[i];
    if (!streams(file, data, s.codec, s.output, s.output.threads)) return false;
    const std::optional<Image> written = write_streamed(file, s.codec, s.output, nullptr, decode, &streamed_notes[i]);
    if (!written) return false;
    run.item(i).pixels = static_cast<uint64_t>(written->width()) * static_cast<uint64_t>(written->height());
    return true;
  };
  hooks.done = [&](size_t i, DecodeResult& result) {
    warn(i, result);
    std::vector<std::string>& messages = run.item(i).messages;
    messages.insert(messages.end(), streamed_notes[i].begin(), streamed_notes[i].end());
    run.finished(i, result.status);
  };
  engine.decode_batch(items, s.codec, hooks);
  return run.end();
}

}  // namespace

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
  // The engine decides what runs where: a batch decodes code-blocks on the
  // device and the CPU together, one file on the CPU alone
  // (engine/placement.h).
  const bool asked_cuda = s.engine.device == Device::kCuda;
  Engine engine(command_engine_options(s.engine, s.codec.threads));
  BatchRequest as_run = s.batch;
  as_run.output = s.out;
  // One file decoded strip by strip: mapped now, its size and streaming
  // told to the placement as the encode's are.
  std::optional<StreamedDecodeInput> streamed;
  if (!is_batch(as_run) && s.batch.inputs.size() == 1)
    streamed = streamed_decode_input(BatchFile{s.batch.inputs[0], s.out}, s.codec, s.output);
  // A batch: its files, and its first file's samples and coder, by which
  // the placement sizes its lanes and decides whether the device pays
  // (engine/placement.h).
  Workload work{is_batch(s.batch), streamed ? streamed->samples : 0, streamed.has_value()};
  if (streamed) {
    const engine::DecodedItem item = engine::decoded_item_of(streamed->data.bytes());
    work.ht = item.ht;
    work.irreversible = item.irreversible;
  }
  work.strips_asked = s.output.streamed;
  std::optional<BatchPlan> plan;
  if (is_batch(as_run)) {
    Result<BatchPlan> planned = plan_batch(as_run, is_codestream_name, "");
    if (!planned.ok()) return usage_error(planned.status().message());
    plan = std::move(*planned);
  }
  if (work.batch) {
    const engine::DecodedItem first = engine::decoded_item_of(plan->files[0].in.string());
    work.expected_samples = first.samples;
    work.ht = first.ht;
    work.irreversible = first.irreversible;
    work.items = plan->files.size();
  }
  Result<Placement> placed = engine.prepare_decode(s.codec, work);
  if (!placed.ok()) return fail("decode", placed.status().message());
  if (asked_cuda && !work.batch && !placed->device && !s.quiet)
    std::fprintf(stderr, "mallat decode: note: one file is decoded on the CPU (same output): CUDA's start-up costs "
                         "more than the device saves for it; a batch of files, or one large Part 1 5/3 image "
                         "decoded whole, uses the device, and --device-stages all uses it anyway\n");
  if (asked_cuda && work.batch && !placed->device && !s.quiet)
    std::fprintf(stderr, "mallat decode: note: these %zu HT files are decoded on the CPU (same output): they are too "
                         "few samples to pay for CUDA's start-up; --device-stages all uses the device anyway\n",
                 plan->files.size());
  // An -o folder makes a batch of one -i file too (batch.h).
  s.batch.output = s.out;
  if (!is_batch(s.batch)) {
    if (const std::string problem = single_file_problem(s.batch); !problem.empty()) return usage_error(problem);
    if (io::format_from_extension(s.out) == io::Format::kUnknown)
      return usage_error("cannot tell the output format from '" + s.out + "'");
    const BatchFile file{s.batch.inputs[0], s.out};
    int status = -1;
    if (streamed) {
      if (const std::optional<int> rc = decode_one_streamed(*streamed, engine, file, s.codec, s.output, s.quiet))
        status = *rc;
    }
    streamed.reset();
    if (status < 0) status = run_one("decode", file, decode_steps(s.output, s.codec.reduce, engine, s.codec), s.quiet);
    note_device_fallback("decode", engine.decode_device_status(), asked_cuda, s.quiet);
    return status;
  }
  if (io::format_from_extension(plan->files[0].out) == io::Format::kUnknown)
    return usage_error("-OutFor must name an image format (png, tif, ppm, pgm, pam, pgx, bmp), got '" +
                       s.batch.out_format + "'");
  // Each file's conversion to its format runs on its lane's threads, as
  // its decode did: a pool of every thread per file would be made and
  // joined for each file while the other lanes hold the cores.
  s.output.threads = placed->threads_per_lane;
  const int status = decode_batch(s, engine, *plan);
  note_device_fallback("decode", engine.decode_device_status(), asked_cuda, s.quiet);
  return status;
}

}  // namespace mallat::tools
