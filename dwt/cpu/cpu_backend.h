// The fast CPU backend: cache-friendly lifting (rows through a line buffer,
// columns in strips of many columns walked row by row), vectorisable inner
// loops, rows and strips shared among a thread pool.
#pragma once

#include <memory>

#include "dwt/dwt.h"

namespace mallat::dwt::cpu {

// The instruction set the kernels were compiled for. kBest: AVX2 + FMA when
// this build has them (x86-64) and the CPU reports them, else generic.
enum class Isa { kBest, kGeneric, kAvx2 };

bool isa_available(Isa isa);
const char* isa_name(Isa isa);

// threads <= 0: one per hardware thread. An unavailable isa falls back to
// the generic kernels (results are identical; tests run every available one).
std::unique_ptr<Backend> make_cpu_backend(int threads = 0, Isa isa = Isa::kBest);

}  // namespace mallat::dwt::cpu
