// The backend suite (backend_suite.h) on the backends every build has: the
// reference itself (what it can show of itself: round trips, batches, the
// padding, time(), refusals) and the CPU backend once per kernel build this
// machine runs, single-threaded (thousands of tiny planes: threads would
// only add hand-off time; cpu_test.cc covers the thread pool).
#include <string>
#include <vector>

#include "dwt/cpu/cpu_backend.h"
#include "dwt/reference.h"
#include "tests/dwt/backend_suite.h"

namespace mallat::dwt::testing {
namespace {

BackendCase cpu_case(const std::string& name, cpu::Isa isa) {
  return {name, nullptr, [isa]() -> Result<std::unique_ptr<Backend>> { return cpu::make_cpu_backend(1, isa); }};
}

// An instruction set this build or CPU lacks has no instance (make_cpu_backend
// would quietly run the generic kernels under its name).
std::vector<BackendCase> host_backends() {
  std::vector<BackendCase> out;
  out.push_back({"Reference", nullptr,
                 []() -> Result<std::unique_ptr<Backend>> { return reference::make_reference_backend(); },
                 /*reports_transfers=*/false, /*is_reference=*/true});
  out.push_back(cpu_case("CpuGeneric", cpu::Isa::kGeneric));
  if (cpu::isa_available(cpu::Isa::kAvx2)) out.push_back(cpu_case("CpuAvx2", cpu::Isa::kAvx2));
  return out;
}

}  // namespace

MALLAT_INSTANTIATE_DWT_BACKEND_SUITE(Host, host_backends);

}  // namespace mallat::dwt::testing
