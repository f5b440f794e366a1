// `mallat bench dwt`: times the DWT backends on synthetic planes.
#pragma once

#include <string>
#include <vector>

#include "tools/option_table.h"

namespace mallat::tools {

// args are the words after "bench dwt". Returns the process exit code.
int bench_dwt_main(const std::vector<std::string>& args);

// Its option table, for the tests.
CommandOptions bench_dwt_options();

}  // namespace mallat::tools
