// mallat._mallat.Engine: a mallat::Engine (codec/api/engine.h) for Python.
// Its pools, lanes and device context live as long as the object, so later
// calls pay no start-up. Every call releases the GIL while it codes. The
// package (python/mallat) checks the arguments and wraps it as mallat.Engine.
#pragma once

#include <pybind11/pybind11.h>

namespace mallat::python {

void bind_engine(pybind11::module_& m);

}  // namespace mallat::python
