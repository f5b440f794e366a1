// A non-owning view of one 2-D plane of samples: pointer, width, height and a
// stride in elements (not bytes), so sub-rectangles are views too. Plain data
// that the device's code reads as the host's does (host_device.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "common/host_device.h"

namespace mallat {

template <typename T>
struct PlaneView {
  T* data = nullptr;
  int64_t width = 0;
  int64_t height = 0;
  int64_t stride = 0;  // elements from one row to the next, >= width

  MALLAT_HD T* row(int64_t y) const { return data + y * stride; }
  MALLAT_HD T& at(int64_t x, int64_t y) const { return data[y * stride + x]; }
  MALLAT_HD bool empty() const { return width == 0 || height == 0; }

  // The sub-rectangle [x0, x0+w) x [y0, y0+h); the caller keeps it inside.
  MALLAT_HD PlaneView sub(int64_t x0, int64_t y0, int64_t w, int64_t h) const {
    return PlaneView{data + y0 * stride + x0, w, h, stride};
  }

  // A view of const samples from one of mutable samples.
  MALLAT_HD operator PlaneView<const T>() const
    requires(!std::is_const_v<T>)
  {
    return PlaneView<const T>{data, width, height, stride};
  }
};

}  // namespace mallat
