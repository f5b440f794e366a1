// The `mallat` subcommands. Each takes its arguments after the subcommand
// name and returns the process exit status (0 ok, 1 failure, 2 bad usage).
#pragma once

#include <string>
#include <vector>

#include "codec/api/encode.h"
#include "codec/api/engine.h"
#include "tools/option_table.h"

namespace mallat::tools {

using Args = std::vector<std::string>;

int encode_main(const Args& args);
int decode_main(const Args& args);
int transcode_main(const Args& args);
int info_main(const Args& args);
int compare_main(const Args& args);
int convert_main(const Args& args);
int bench_main(const Args& args);

// encode's, decode's and transcode's option tables (encode_command.cc, decode_command.cc,
// transcode_command.cc), for the tests; bench dwt's is in bench_dwt.h.
CommandOptions encode_options();
CommandOptions decode_options();
CommandOptions transcode_options();

// encode's options applied to `args` (no -i, -o or -ImgDir): the codec's
// options, with the container -OutFor names (a codestream without it), and
// the engine's (--device, --device-stages, ...). For `mallat bench codec`,
// which takes encode's options.
struct EncodeCommandOptions {
  codec::EncodeOptions codec;
  EngineOptions engine;
};
Result<EncodeCommandOptions> parse_encode_command_options(const Args& args);

// `mallat info` of a .j2k/.jp2 file (jpeg2000_info.cc): whether `path`
// starts like one, and the report; returns the exit status.
bool is_jpeg2000_file(const std::string& path);
int jpeg2000_info(const std::string& path);

// Prints "mallat <command>: <message>" to stderr and returns `status`.
int fail(const std::string& command, const std::string& message, int status = 1);

}  // namespace mallat::tools
