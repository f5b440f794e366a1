// The HT VLC tables (entropy/ht/vlc_tables.h) in device memory, for the HT
// kernels: the host's tables copied once when a device coder starts, so both
// sides code from the same tables. Host code.
#pragma once

#include <cstdint>

#include "common/status.h"
#include "entropy/cuda/cuda_memory.h"
#include "entropy/ht/vlc_tables.h"

namespace mallat::entropy::cuda {

class DeviceVlcTables {
 public:
  // Copies the host's tables to the device (synchronously).
  Status upload();
  // Device pointers into them, valid while this object lives.
  const ht::SharedVlcTables& tables() const { return tables_; }

 private:
  DeviceBuffer<uint16_t> buffer_;
  ht::SharedVlcTables tables_;
};

}  // namespace mallat::entropy::cuda
