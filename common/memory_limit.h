// The default limit on the memory one decode (of a JPEG 2000 stream or an
// image file) may plan for: hostile headers (a huge image in a small file)
// fail with a message instead of exhausting the machine.
#pragma once

#include <cstdint>

namespace mallat {

// Half of the memory this process may use: the smaller of the machine's
// physical memory and the address-space limit (ulimit -v).
uint64_t default_memory_limit();

}  // namespace mallat
