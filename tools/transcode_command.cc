// mallat transcode: Part 1 <-> HT recoding of a codestream or JP2/JPH file
// (codec/api/transcode.h), with its option table (tools/option_table.h).
#include <cstdio>
#include <string>

#include "codec/codec.h"
#include "io/file.h"
#include "tools/commands.h"
#include "tools/option_table.h"
#include "tools/option_values.h"

namespace mallat::tools {
namespace {

const char kTranscodeIntro[] =
    "usage: mallat transcode -i IN -o OUT --ht | --part1 [options]\n"
    "Recodes the code-blocks of a JPEG 2000 codestream or JP2/JPH file with the other block coder:\n"
    "HT (HTJ2K, 15444-15) or Part 1 (EBCOT), without touching the coefficients, so a lossless\n"
    "stream stays lossless. Tiles, precincts, progression, layers, quantisation, SOP/EPH, PPM/PPT,\n"
    "TLM and PLT are kept (one tile-part per tile); a JP2 input keeps its boxes. OUT's extension\n"
    "picks the container: .jp2, .jph (JP2 boxes, 'jph ' brand), .j2k, .j2c or .jhc (codestream).\n";

// What transcode's options fill in.
struct TranscodeSettings {
  std::string in, out;
  codec::TranscodeOptions codec;
  bool target_given = false;
  bool fsync = false;  // --fsync
};

// --ht and --part1: the target coder, one of the two.
Status set_target(TranscodeSettings& s, codec::BlockCoder target) {
  if (s.target_given && s.codec.target != target) return invalid_argument("--ht and --part1 exclude each other");
  s.codec.target = target;
  s.target_given = true;
  return Status::Ok();
}

const std::vector<Option<TranscodeSettings>>& transcode_table() {
  static const std::vector<Option<TranscodeSettings>> table = {
      {{"-i"}, "IN", "the codestream (.j2k, .j2c, .jhc) or JP2/JPH file to transcode (required)", "in.jp2",
       [](TranscodeSettings& s, const std::string& v) { s.in = v; return Status::Ok(); }},
      {{"-o"}, "OUT", "the file to write: .jp2, .jph (JP2 boxes), .j2k, .j2c or .jhc (codestream) (required)",
       "out.jph", [](TranscodeSettings& s, const std::string& v) { s.out = v; return Status::Ok(); }},
      {{"--ht"}, "", "write HT code-blocks (HTJ2K, 15444-15)", "",
       [](TranscodeSettings& s, const std::string&) { return set_target(s, codec::BlockCoder::kHt); }},
      {{"--part1"}, "", "write Part 1 (EBCOT) code-blocks", "",
       [](TranscodeSettings& s, const std::string&) { return set_target(s, codec::BlockCoder::kPart1); }},
      {{"-threads", "--threads"}, "N", "threads for the block coders (default: all cores); output is identical for any N", "2",
       [](TranscodeSettings& s, const std::string& v) { return parse_threads(v, &s.codec.threads); }},
      {{"--fsync"}, "", kFsyncHelp, "", [](TranscodeSettings& s, const std::string&) {
         s.fsync = true;
         return Status::Ok();
       }},
  };
  return table;
}

}  // namespace

CommandOptions transcode_options() { return command_options<TranscodeSettings>("transcode", transcode_table()); }

int transcode_main(const Args& args) {
  auto usage_error = [](const std::string& m) { return fail("transcode", m + " (see --help)", 2); };
  TranscodeSettings s;
  Result<Parsed> parsed = parse_options(transcode_table(), args, s);
  if (!parsed.ok()) return usage_error(parsed.status().message());
  if (*parsed == Parsed::kHelp) {
    std::fputs(help_text(kTranscodeIntro, option_texts(transcode_table())).c_str(), stdout);
    return 0;
  }
  if (s.in.empty() || s.out.empty()) return usage_error("-i IN and -o OUT are required");
  if (!s.target_given) return usage_error("--ht or --part1 is required");
  io::set_durable_writes(s.fsync);
  s.codec.container = output_container(s.out);
  if (s.codec.container == codec::Container::kUnknown) return usage_error(bad_output_extension(s.out));
  auto data = io::read_file(s.in);
  if (!data.ok()) return fail("transcode", data.status().message());
  codec::TranscodeReport report;
  auto bytes = codec::transcode(*data, s.codec, &report);
  for (const auto& w : report.warnings) {
    std::fprintf(stderr, "mallat transcode: warning: %s: %s\n", s.in.c_str(), w.c_str());
  }
  if (!bytes.ok()) return fail("transcode", s.in + ": " + bytes.status().message());
  Status status = io::write_file_atomically(s.out, *bytes);
  if (!status.ok()) return fail("transcode", status.message());
  return 0;
}

}  // namespace mallat::tools
