// mallat: the command line. One binary, one subcommand per job.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "tools/cli_doc.h"
#include "tools/commands.h"
#include "codec/api/engine.h"

namespace {

const char kUsage[] =
    "mallat: a JPEG 2000 codec (Part 1 and HTJ2K) on the CPU; with --device cuda a batch of\n"
    "files runs on a CUDA GPU\n"
    "\n"
    "usage: mallat <command> [options]\n"
    "\n"
    "commands:\n"
    "  encode -i IN -o OUT [...]  encode an image to JPEG 2000 (.j2k, .j2c, .jp2), lossless;\n"
    "                             -i DIR -o OUTDIR encodes a folder (a batch)\n"
    "  decode -i IN -o OUT [...]  decode a JPEG 2000 codestream or JP2 file to an image;\n"
    "                             -i DIR -o OUTDIR -OutFor EXT decodes a folder\n"
    "  transcode -i IN -o OUT --ht|--part1\n"
    "                             recode the code-blocks as HT or Part 1, coefficients untouched\n"
    "  info FILE...               size, components, bit depth and signedness of image files\n"
    "  compare A B                MSE, PSNR and peak error per component; exit 1 if sizes differ\n"
    "  convert IN OUT             convert between PNG, TIFF, PNM (PGM/PPM), PGX and BMP\n"
    "  bench dwt [...]            wavelet transform speed (mallat bench dwt --help)\n"
    "  bench codec FILES... [...] encode and decode speed with each stage's time\n"
    "\n"
    "Image formats are found from the file's magic bytes, then its extension.\n"
    "Run 'mallat <command> --help' for a command's options.\n";

}  // namespace

int run(int argc, char** argv) {
  // Not listed in the usage: it writes docs/CLI.md (tools/cli_doc.h).
  if (argc == 3 && !std::strcmp(argv[1], "help") && !std::strcmp(argv[2], "--markdown")) {
    std::fputs(mallat::tools::cli_reference_markdown(kUsage).c_str(), stdout);
    return 0;
  }
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") ||
      !std::strcmp(argv[1], "help")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  mallat::tools::Args args(argv + 2, argv + argc);
  if (command == "encode") return mallat::tools::encode_main(args);
  if (command == "decode") return mallat::tools::decode_main(args);
  if (command == "transcode") return mallat::tools::transcode_main(args);
  if (command == "info") return mallat::tools::info_main(args);
  if (command == "compare") return mallat::tools::compare_main(args);
  if (command == "convert") return mallat::tools::convert_main(args);
  if (command == "bench") return mallat::tools::bench_main(args);
  if (command == "--version") {
    std::puts("mallat 0.1.0");
    return 0;
  }
  std::fprintf(stderr, "mallat: unknown command '%s'\n\n%s", command.c_str(), kUsage);
  return 2;
}

int main(int argc, char** argv) {
  // The decoder refuses streams whose headers need more than --max-memory
  // before allocating; this is the last line for what slips past that.
  try {
    const int status = run(argc, argv);
    // A device coder (encode --device cuda) is neither torn down nor, if
    // still starting, waited for: every file is written and closed by now,
    // so leave at once (EngineOptions::keep_device_until_exit).
    if (mallat::Engine::device_started_in_process()) {
      std::fflush(nullptr);
      std::_Exit(status);
    }
    return status;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "mallat %s: out of memory\n", argc > 1 ? argv[1] : "");
    return 1;
  }
}
