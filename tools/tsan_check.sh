#!/usr/bin/env bash
# The public API from eight threads at once under ThreadSanitizer (the
# Python module calls encode/decode from many threads with the GIL
# released). Builds tests/threads/concurrent_codec_test with -fsanitize=thread
# in BUILD_DIR (default build-tsan) and runs it; any data race fails it.
#   tools/tsan_check.sh [extra CMake options]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-tsan}
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# -O0: ThreadSanitizer instruments every memory access at any optimisation
# level, so the check is the same, and the build (most of this job's time)
# compiles quicker than at -O1. A unity build (cmake/unity.cmake): each
# library's files compiled in batches, every access instrumented as before.
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DMALLAT_CUDA=OFF -DMALLAT_PYTHON=OFF -DMALLAT_TEST_PCH=OFF \
  -DCMAKE_UNITY_BUILD=ON "${launcher[@]}" \
  -DCMAKE_CXX_FLAGS="-fsanitize=thread -g -fno-omit-frame-pointer" -DCMAKE_CXX_FLAGS_RELEASE="-O0 -DNDEBUG" \
  -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread "$@" >/dev/null
cmake --build "$build" -j "$(nproc)" --target concurrent_codec_test
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}" \
  "$build/tests/threads/concurrent_codec_test"
