// `mallat bench codec`: in-process encode and decode throughput of whole
// files, with the time of each stage (codec/api/stage_times.h).
#pragma once

#include <string>
#include <vector>

namespace mallat::tools {

// args are the words after "bench codec". Returns the process exit code.
int bench_codec_main(const std::vector<std::string>& args);

}  // namespace mallat::tools
