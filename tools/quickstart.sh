#!/usr/bin/env bash
# The README's two quick-start commands:
#   tools/quickstart.sh demo   install what is missing, build the CLI, run the main job
#   tools/quickstart.sh test   install what is missing, build, run every test
# Works on a fresh Debian 12 machine (as root, or with sudo). BUILD_DIR and
# MALLAT_CMAKE_ARGS may be set to change the build folder and CMake options.
# `test` also builds with ASan+UBSan in BUILD_DIR-sanitize and runs the
# robustness and interop tests there (MALLAT_SANITIZE_JOB=0 skips that), and
# runs tools/tsan_check.sh in BUILD_DIR-tsan (MALLAT_TSAN_JOB=0 skips that).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-demo}
build=${BUILD_DIR:-build}

# Each phase's wall time and CPU time (user+sys of every process it ran),
# printed as it ends and again at the end, so a CI log shows where the time
# goes; CPU time stays meaningful on a machine shared with other jobs.
phase_summary=()
times_file=$(mktemp)
trap 'rm -f "$times_file"' EXIT
cpu_now() {
  # `times` in this shell (not a subshell, whose counts start at zero): its
  # second line is the children's user and system time, as 1m2.5s.
  times >"$times_file"
  cpu=$(awk 'NR == 2 { split($1, u, "m"); split($2, s, "m"); printf "%.2f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' \
    "$times_file")
}
phase() {
  local name=$1 wall0=$EPOCHREALTIME cpu0 line
  shift
  cpu_now
  cpu0=$cpu
  "$@"
  cpu_now
  line=$(awk -v n="$name" -v w0="$wall0" -v w1="$EPOCHREALTIME" -v c0="$cpu0" -v c1="$cpu" \
    'BEGIN { printf "%-16s %7.1f s wall %8.1f s CPU", n, w1 - w0, c1 - c0 }')
  echo "quickstart: phase $line" >&2
  phase_summary+=("$line")
}
print_phases() {
  echo "quickstart: phases (wall time; CPU = user+sys of every process the phase ran):"
  printf '  %s\n' "${phase_summary[@]}"
}

packages=(cmake g++ make pkg-config libpng-dev libtiff-dev libgtest-dev libbenchmark-dev
          libopenjp2-tools grokj2k-tools openjph-tools python3-numpy python3-matplotlib
          python3-dev pybind11-dev python3-pytest python3-numcodecs python3-zarr python3-distributed python3-dask
          python3-setuptools python3-wheel python3-venv python3-pip python3-build python3-pil python3-pydicom)
install_missing() {
  local missing=() p sudo=""
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "quickstart: installing ${missing[*]}"
    [[ $(id -u) -eq 0 ]] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}
phase install install_missing

cmake_args=(-DCMAKE_BUILD_TYPE=Release)
[[ "${CI:-}" == "true" ]] && cmake_args+=(-DMALLAT_WERROR=ON)
# shellcheck disable=SC2206
cmake_args+=(${MALLAT_CMAKE_ARGS:-})
phase configure cmake -S . -B "$build" "${cmake_args[@]}" >/dev/null
if [[ "$mode" == demo ]]; then
  # The demo runs the CLI alone: only its target is built, not the tests
  # (the same configuration, so `test` can use this build folder after it).
  phase build cmake --build "$build" -j "$(nproc)" --target mallat
else
  phase build cmake --build "$build" -j "$(nproc)"
fi

case "$mode" in
  test)
    phase tests ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
    # The decoder again under AddressSanitizer and UBSan: every malformed
    # file, the fuzz regressions, round trips and interop tests.
    # MALLAT_SANITIZE_JOB=0 leaves this out.
    if [[ "${MALLAT_SANITIZE_JOB:-1}" != 0 ]]; then
      sanitize_build="${build}-sanitize"
      # -O1: ASan and UBSan find the same faults as at -O3, and the build
      # is quicker. A unity build (cmake/unity.cmake): each library's files
      # compiled in batches, the same code instrumented the same way.
      phase sanitize-config cmake -S . -B "$sanitize_build" -DCMAKE_BUILD_TYPE=Release -DMALLAT_SANITIZE=ON \
        -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" -DMALLAT_CUDA=OFF -DCMAKE_UNITY_BUILD=ON "${cmake_args[@]:1}" >/dev/null
      phase sanitize-build cmake --build "$sanitize_build" -j "$(nproc)" --target sanitizer_checks
      phase sanitize-tests env ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
        ctest --test-dir "$sanitize_build" --output-on-failure -j "$(nproc)" -L 'robustness|interop'
    fi
    # The API from eight threads at once under ThreadSanitizer (the Python
    # module's use). MALLAT_TSAN_JOB=0 leaves this out.
    if [[ "${MALLAT_TSAN_JOB:-1}" != 0 ]]; then
      phase tsan env BUILD_DIR="${build}-tsan" tools/tsan_check.sh "${cmake_args[@]:1}"
    fi
    print_phases
    ;;
  demo)
    # The main job: a lossless encode and decode, checked sample for sample,
    # and the same file decoded by OpenJPEG.
    input=../shared/testdata/images/Bretagne1.ppm
    out=$(mktemp -d)
    if [[ ! -f $input ]]; then
      # No shared data beside the checkout: make a test image instead.
      input=$out/pattern.pgm
      python3 -c "import sys; w,h=256,256; sys.stdout.buffer.write(b'P5 %d %d 255\n'%(w,h)+bytes((x^y)&255 for y in range(h) for x in range(w)))" >"$input"
    fi
    mallat="$build/tools/mallat"
    "$mallat" info "$input"
    "$mallat" encode -i "$input" -o "$out/image.jp2"
    echo "encoded $(stat -c %s "$input") bytes to $(stat -c %s "$out/image.jp2") bytes: $out/image.jp2"
    "$mallat" decode -i "$out/image.jp2" -o "$out/decoded.ppm"
    "$mallat" compare "$input" "$out/decoded.ppm"
    opj_decompress -i "$out/image.jp2" -o "$out/opj.ppm" >/dev/null
    echo "OpenJPEG's decode of our file:"
    "$mallat" compare "$input" "$out/opj.ppm"
    rm -rf "$out"
    ;;
  *)
    echo "usage: tools/quickstart.sh demo|test" >&2
    exit 2
    ;;
esac
