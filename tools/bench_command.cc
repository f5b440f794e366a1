// `mallat bench <what>`: rerunnable benchmarks.
#include <cstdio>

#include "tools/bench_codec.h"
#include "tools/bench_dwt.h"
#include "tools/commands.h"

namespace mallat::tools {

int bench_main(const Args& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::puts("usage: mallat bench dwt [options]        (mallat bench dwt --help)\n"
              "       mallat bench codec FILES... [...]  (mallat bench codec --help)");
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "dwt") return bench_dwt_main(Args(args.begin() + 1, args.end()));
  if (args[0] == "codec") return bench_codec_main(Args(args.begin() + 1, args.end()));
  return fail("bench", "unknown benchmark '" + args[0] + "' (known: dwt, codec)", 2);
}

}  // namespace mallat::tools
