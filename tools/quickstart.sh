#!/usr/bin/env bash
# The README's two quick-start commands:
#   tools/quickstart.sh demo   install what is missing, build, run the main job
#   tools/quickstart.sh test   install what is missing, build, run every test
# Works on a fresh Debian 12 machine (as root, or with sudo). BUILD_DIR and
# MALLAT_CMAKE_ARGS may be set to change the build folder and CMake options.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-demo}
build=${BUILD_DIR:-build}

packages=(cmake g++ make pkg-config libpng-dev libtiff-dev libgtest-dev libbenchmark-dev
          libopenjp2-tools grokj2k-tools python3-numpy python3-matplotlib)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "quickstart: installing ${missing[*]}"
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

cmake_args=(-DCMAKE_BUILD_TYPE=Release)
[[ "${CI:-}" == "true" ]] && cmake_args+=(-DMALLAT_WERROR=ON)
# shellcheck disable=SC2206
cmake_args+=(${MALLAT_CMAKE_ARGS:-})
cmake -S . -B "$build" "${cmake_args[@]}" >/dev/null
cmake --build "$build" -j "$(nproc)"

case "$mode" in
  test)
    ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
    ;;
  demo)
    input=../shared/testdata/images/Bretagne1.ppm
    out=$(mktemp -d)
    if [[ ! -f $input ]]; then
      # No shared data beside the checkout: make a test image instead.
      input=$out/gradient.pgm
      python3 -c "import sys; w,h=256,256; sys.stdout.buffer.write(b'P5 %d %d 255\n'%(w,h)+bytes((x^y)&255 for y in range(h) for x in range(w)))" >"$input"
    fi
    "$build/tools/mallat" info "$input"
    "$build/tools/mallat" convert "$input" "$out/copy.png"
    "$build/tools/mallat" compare "$input" "$out/copy.png"
    "$build/tools/mallat" bench dwt --backend auto --size 2048x2048 --levels 5 --runs 3
    rm -rf "$out"
    ;;
  *)
    echo "usage: tools/quickstart.sh demo|test" >&2
    exit 2
    ;;
esac
