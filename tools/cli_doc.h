// The command-line reference as Markdown (docs/CLI.md), made from the same
// option tables that parse the options and print --help, so the document
// cannot drift from the binary: `mallat help --markdown` prints it, and the
// test cli_reference fails when docs/CLI.md differs.
#pragma once

#include <string>
#include <string_view>

namespace mallat::tools {

// `usage` is the text `mallat --help` prints.
std::string cli_reference_markdown(std::string_view usage);

}  // namespace mallat::tools
