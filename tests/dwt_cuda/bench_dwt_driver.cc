// Runs the dwt helper's `mallat bench dwt` (tools/bench_dwt.cc) until
// tools/main.cc dispatches to it: dwt_bench_tool <bench dwt arguments>.
#include <string>
#include <vector>

#include "tools/bench_dwt.h"

int main(int argc, char** argv) {
  return mallat::tools::bench_dwt_main(std::vector<std::string>(argv + 1, argv + argc));
}
