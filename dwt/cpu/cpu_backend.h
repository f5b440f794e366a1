// The fast CPU backend: cache-friendly lifting (rows through a line buffer,
// columns in strips of many columns walked row by row), vectorisable inner
// loops, rows and strips shared among a thread pool.
#pragma once

#include <memory>

#include "dwt/dwt.h"

namespace mallat::dwt::cpu {

// threads <= 0: one per hardware thread.
std::unique_ptr<Backend> make_cpu_backend(int threads = 0);

}  // namespace mallat::dwt::cpu
