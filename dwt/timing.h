// Steady-clock timing of a host backend, shared by the reference and CPU
// backends: each run starts from the same saved input, so the planes end up
// holding the result of exactly one application.
#pragma once

#include <span>

#include "common/status.h"
#include "dwt/dwt.h"

namespace mallat::dwt {

Result<Timing> time_on_host(Backend& backend, std::span<const PlaneJob> jobs, int warmup,
                            int runs);

}  // namespace mallat::dwt
