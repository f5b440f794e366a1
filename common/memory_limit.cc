#include "common/memory_limit.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

namespace mallat {

uint64_t default_memory_limit() {
  uint64_t available = UINT64_MAX;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0) {
    const auto p = static_cast<uint64_t>(pages), s = static_cast<uint64_t>(page);
    available = p > UINT64_MAX / s ? UINT64_MAX : p * s;
  }
  rlimit rl{};
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    available = std::min<uint64_t>(available, rl.rlim_cur);
  return available / 2;
}

}  // namespace mallat
