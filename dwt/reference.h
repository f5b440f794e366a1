// The plain reference DWT: Annex F written out as the standard states it,
// one line at a time, with explicit periodic symmetric extension. Slow and
// obviously correct; every other backend is tested against it.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "common/status.h"
#include "dwt/dwt.h"

namespace mallat::dwt::reference {

// 1-D transforms of the samples X(i0) .. X(i0 + n - 1), n = line.size().
// Forward: the line comes back packed, low-pass (even i) samples first, then
// the high-pass (odd i) ones. Inverse: takes that packed order and returns
// the samples in natural order. 9/7 computes in double.
void forward_53(std::span<int32_t> line, int64_t i0);
void inverse_53(std::span<int32_t> line, int64_t i0);
void forward_97(std::span<float> line, int64_t i0);
void inverse_97(std::span<float> line, int64_t i0);

// F.3.7 / F.4.7 (PSE, F-4): the index of the signal [i0, i1) that sample i
// of the periodically symmetric extension copies. Requires i1 - i0 >= 2.
int64_t pse_index(int64_t i, int64_t i0, int64_t i1);

// One plane, all levels, as 2D_SD (F.4.2: columns, then rows) level by
// level, or 2D_SR (F.3.2: rows, then columns) from the coarsest level down.
Status transform(const PlaneJob& job);

std::unique_ptr<Backend> make_reference_backend();

}  // namespace mallat::dwt::reference
