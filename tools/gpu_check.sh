#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: builds with CUDA (sm_90 unless
# CUDA_ARCH says otherwise), runs the GPU tests, encodes and decodes IMAGE
# losslessly and with -I -r 20 with --dwt cpu and --dwt cuda at 1 and all
# threads (whole processes, median of 5), checks that both backends write the
# same codestream and decode to the same samples (5/3) or within 1 (9/7),
# and runs the CUDA DWT benchmark. Results go to OUTDIR.
#   tools/gpu_check.sh IMAGE [OUTDIR]   (SKIP_TESTS=1, SKIP_BENCH=1 leave those out)
set -uo pipefail
cd "$(dirname "$0")/.."
img=${1:?usage: tools/gpu_check.sh IMAGE [OUTDIR]}
out=${2:-gpu-check}
mkdir -p "$out"
build=${BUILD_DIR:-build-gpu}
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; echo "cpus: $(nproc)"; } | tee "$out/device.txt"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" -DMALLAT_CUDA=ON \
  >"$out/cmake.txt" 2>&1 || { tail -20 "$out/cmake.txt"; exit 1; }
cmake --build "$build" -j "$(nproc)" >"$out/build.txt" 2>&1 || { tail -30 "$out/build.txt"; exit 1; }
if [[ -z "${SKIP_TESTS:-}" ]]; then
  ctest --test-dir "$build" -L gpu -j 8 --output-on-failure >"$out/gpu_tests.txt" 2>&1
  grep -E "tests passed|tests failed" "$out/gpu_tests.txt"
fi
mallat="$build/tools/mallat"
tmp=$(mktemp -d)
seconds() {   # wall seconds of one run of the command
  local s e
  s=$(date +%s%N)
  "$@" >/dev/null 2>&1 || echo "FAILED: $*" >&2
  e=$(date +%s%N)
  awk -v a="$s" -v b="$e" 'BEGIN { printf "%.3f\n", (b - a) / 1e9 }'
}
median5() { sort -n | awk '{ v[NR] = $1 } END { print v[3] }'; }
{
  for mode in lossless lossy; do
    opts=()
    [[ $mode == lossy ]] && opts=(-I -r 20)
    for dwt in cpu cuda; do
      for threads in 1 "$(nproc)"; do
        j2k="$tmp/$mode-$dwt.j2k" ppm="$tmp/$mode-$dwt.ppm"
        enc=$(for _ in 1 2 3 4 5; do seconds "$mallat" encode -i "$img" -o "$j2k" "${opts[@]}" --dwt $dwt -threads "$threads"; done | median5)
        dec=$(for _ in 1 2 3 4 5; do seconds "$mallat" decode -i "$j2k" -o "$ppm" --dwt $dwt -threads "$threads"; done | median5)
        echo "$mode --dwt $dwt -threads $threads: encode $enc s, decode $dec s, $(stat -c %s "$j2k") bytes"
      done
    done
    cmp -s "$tmp/$mode-cpu.j2k" "$tmp/$mode-cuda.j2k" && echo "$mode: --dwt cuda writes the same codestream as --dwt cpu" \
      || echo "$mode: CODESTREAMS DIFFER"
    echo "$mode decodes, cpu against cuda: $("$mallat" compare "$tmp/$mode-cpu.ppm" "$tmp/$mode-cuda.ppm" | tail -1)"
  done
} 2>&1 | tee "$out/codec.txt"
rm -rf "$tmp"
if [[ -z "${SKIP_BENCH:-}" ]]; then
  "$mallat" bench dwt --backend cuda --runs 50 >"$out/bench_dwt.txt" 2>&1
  tail -3 "$out/bench_dwt.txt"
fi
