#include "tools/codec_command_rows.h"

#include <cstdio>

namespace mallat::tools {

std::string single_file_problem(const BatchRequest& request) {
  if (request.inputs.empty() || request.output.empty()) return "-i IN and -o OUT are required";
  if (!request.out_format.empty()) return "-OutFor is a batch's output format; for one file OUT's extension picks it";
  return "";
}

void note_device_fallback(const char* command, const Status& device, bool asked_cuda, bool quiet) {
  if (!asked_cuda || quiet || device.ok()) return;
  std::fprintf(stderr, "mallat %s: note: Tier-1 ran on the CPU (same output): %s\n", command,
               device.message().c_str());
}

EngineOptions command_engine_options(EngineOptions engine, int threads) {
  engine.threads = threads;
  engine.keep_device_until_exit = true;
  return engine;
}

}  // namespace mallat::tools
