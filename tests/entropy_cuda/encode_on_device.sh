#!/usr/bin/env bash
# Tier-1 on the GPU inside the encoder, on the lent GPU machine in one go
# (the device tool runs it from the repository root; results go to $OUT):
# builds mallat and the GPU tests, runs them, checks that --device cuda
# writes the --device cpu file for IMAGE, and times (16 threads):
#   whole processes, median of 5: encode lossless and -I -r 20, cpu and cuda
#   mallat bench codec IMAGE --runs 5, cpu and cuda (per-stage times)
#   a batch of 16 copies of IMAGE: encode -i DIR -o OUT, cpu and cuda
#   tests/entropy_cuda/encode_on_device.sh IMAGE
set -uo pipefail
IMAGE=$(realpath "$1")
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,power.draw --format=csv | tee "$OUT/device.txt"
nproc
B=build-gpupipe
t0=$(date +%s)
cmake -S . -B $B -DCMAKE_CUDA_ARCHITECTURES=90 -DMALLAT_CUDA=ON -DMALLAT_TIFF=OFF -DMALLAT_PYTHON=OFF \
  -DCMAKE_BUILD_TYPE=Release > "$OUT/cfg.log" 2>&1 || { tail -30 "$OUT/cfg.log"; exit 1; }
cmake --build $B -j16 --target mallat encode_cuda_test entropy_cuda_test \
  > "$OUT/build.log" 2>&1 || { grep -E "error|Error" -A3 "$OUT/build.log" | head -60; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
M=$B/tools/mallat
timeout 120 $B/tests/entropy_cuda/encode_cuda_test 2>&1 | tee "$OUT/encode-cuda-test.log" | \
  grep -E "^\[  (PASSED|FAILED|SKIPPED)|Failure|tests ran" | head -20
timeout 180 $B/tests/entropy_cuda/entropy_cuda_test 2>&1 | tee "$OUT/entropy-cuda-test.log" | \
  grep -E "^\[  (PASSED|FAILED|SKIPPED)|Failure|tests ran" | head -20

W=/tmp/gpupipe-work
rm -rf $W && mkdir -p $W
# Whole processes; prints the median of 5 in ms.
median5() {
  local times=()
  for i in 1 2 3 4 5; do
    local s=$(date +%s%N)
    "$@" > /dev/null 2>&1 || { echo "FAILED: $*"; return 1; }
    times+=($(( ($(date +%s%N) - s) / 1000000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n 3p | tr '\n' ' '
  echo "(runs: ${times[*]})"
}
for mode in lossless lossy; do
  extra=(); [ $mode = lossy ] && extra=(-I -r 20)
  for dev in cpu cuda; do
    $M encode -i "$IMAGE" -o $W/$mode-$dev.j2k -threads 16 --device $dev "${extra[@]}" || echo "encode FAILED"
  done
  if cmp -s $W/$mode-cpu.j2k $W/$mode-cuda.j2k; then echo "$mode: cuda file == cpu file ($(stat -c %s $W/$mode-cpu.j2k) bytes)"
  else echo "$mode: FILES DIFFER: cpu $(stat -c %s $W/$mode-cpu.j2k), cuda $(stat -c %s $W/$mode-cuda.j2k)"; fi
  for dev in cpu cuda; do
    echo -n "encode $mode --device $dev, 16 threads, median of 5 processes (ms): "
    median5 $M encode -i "$IMAGE" -o $W/t.j2k -threads 16 --device $dev "${extra[@]}"
  done
done | tee "$OUT/encode-times.txt"
for dev in cpu cuda; do
  $M bench codec "$IMAGE" --runs 5 -threads 16 --device $dev 2>&1 | tee "$OUT/bench-$dev.txt"
done
mkdir -p $W/in
for i in $(seq -w 1 16); do cp "$IMAGE" $W/in/m$i.ppm; done
for mode in lossless lossy; do
  extra=(); [ $mode = lossy ] && extra=(-I -r 20)
  for dev in cpu cuda; do
    rm -rf $W/o-$dev && mkdir -p $W/o-$dev
    for run in 1 2 3; do
      s=$(date +%s%N)
      $M encode -i $W/in -o $W/o-$dev -OutFor j2k -threads 16 --device $dev -quiet "${extra[@]}" || echo "batch FAILED"
      echo "batch of 16 $mode --device $dev run $run: $(( ($(date +%s%N) - s) / 1000000 )) ms"
    done
  done
  diff -rq $W/o-cpu $W/o-cuda > /dev/null && echo "batch $mode: cuda files == cpu files" || echo "batch $mode: FILES DIFFER"
done | tee "$OUT/batch-times.txt"
echo "total: $(( $(date +%s) - t0 )) s"
