#!/usr/bin/env bash
# HTJ2K on the GPU, on a machine with an NVIDIA GPU, from the repository root (inputs in .gpu/, bench/README.md):
# 1. the HT Tier-1 kernels alone (entropy_cuda_bench / entropy_cuda_decode_bench, style 0x40: the mosaic's worth
#    of Laplacian 64x64 blocks, 1 and 8 images in one launch, blocks per warp swept, outputs checked);
# 2. `mallat bench codec --ht` on 8 copies of the mosaic, whole tiles on the device against --device cpu;
# 3. 64 copies, whole commands (-threads default: every core), HT lossless --device cpu and cuda against OpenJPH's
#    ojph_compress / ojph_expand run as one process per core, ROUNDS rounds (default 3), outputs compared;
# 4. the large mosaic (the mosaic tiled 4 x 4, 15360x8192) encoded and decoded alone: wall time and peak RSS.
# Builds mallat with CUDA into $BUILD (default build-gpu) unless it is there; writes under $OUT (default /tmp/out).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
BUILD=${BUILD:-build-gpu}
if [ ! -x "$BUILD/tools/mallat" ]; then
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DMALLAT_CUDA=ON -DMALLAT_PYTHON=OFF >/dev/null &&
    cmake --build "$BUILD" -j"$(nproc)" >/dev/null || exit 1
fi
M=$PWD/$BUILD/tools/mallat
B=$BUILD/tests/entropy_cuda
t=$(mktemp -d)
export LD_LIBRARY_PATH=$PWD/.gpu/ojph/lib
OJC=$PWD/.gpu/ojph/usr/bin/ojph_compress; OJE=$PWD/.gpu/ojph/usr/bin/ojph_expand
for imgs in 1 8; do
  echo "== HT encoding kernel, $imgs image(s) a launch"; "$B/entropy_cuda_bench" 10 2 $imgs 0x40 | tee -a "$OUT/kernels.txt"
  echo "== HT decoding kernel, $imgs image(s) a launch"; "$B/entropy_cuda_decode_bench" 10 2 $imgs 0x40 | tee -a "$OUT/kernels.txt"
done
mkdir -p "$t/m8"; for i in 0 1 2 3 4 5 6 7; do cp .gpu/mosaic.ppm "$t/m8/m$i.ppm"; done
for o in "--ht --device cuda --device-stages all" "--ht --device cpu"; do
  echo "== bench codec $o"; "$M" bench codec "$t"/m8/*.ppm --runs 5 $o | tee -a "$OUT/bench_codec.txt"
done
mkdir -p "$t/m64"; for i in $(seq -w 0 63); do ln -f "$t/m8/m0.ppm" "$t/m64/m$i.ppm"; done
for r in $(seq "${ROUNDS:-3}"); do
  for dev in cpu cuda; do
    rm -rf "$t/e_$dev" "$t/d_$dev"; s=$(date +%s%N)
    "$M" encode -i "$t/m64" -o "$t/e_$dev" -OutFor j2k --ht -quiet --device $dev; e=$(date +%s%N)
    "$M" decode -i "$t/e_$dev" -o "$t/d_$dev" -OutFor ppm -quiet --device $dev; d=$(date +%s%N)
    echo "round $r, 64 files HT lossless --device $dev: encode $(( (e - s) / 1000000 )) ms, decode $(( (d - e) / 1000000 )) ms"
  done
  if [ -x "$OJC" ]; then
    rm -rf "$t/oj"; mkdir -p "$t/oj"; s=$(date +%s%N)
    ls "$t"/m64/*.ppm | xargs -P "$(nproc)" -I{} sh -c "$OJC -i {} -o $t/oj/\$(basename {} .ppm).j2c -reversible true >/dev/null"
    e=$(date +%s%N)
    ls "$t"/oj/*.j2c | xargs -P "$(nproc)" -I{} sh -c "$OJE -i {} -o {}.ppm >/dev/null"; d=$(date +%s%N)
    echo "round $r, 64 files OpenJPH, $(nproc) processes: encode $(( (e - s) / 1000000 )) ms, decode $(( (d - e) / 1000000 )) ms"
  fi
done | tee "$OUT/batch.txt"
diff -rq "$t/e_cpu" "$t/e_cuda" >/dev/null && diff -rq "$t/d_cpu" "$t/d_cuda" >/dev/null &&
  echo "64-file batches: --device cuda gave --device cpu's files" | tee -a "$OUT/batch.txt"
python3 - "$t" <<'PY'
import sys
t = sys.argv[1]
data = open(".gpu/mosaic.ppm", "rb").read()
parts = data.split(b"\n", 3)
w, h = map(int, parts[1].split())
body, row = parts[3], w * 3
with open(t + "/large.ppm", "wb") as f:
    f.write(b"P6\n%d %d\n255\n" % (4 * w, 4 * h))
    for _ in range(4):
        for y in range(h):
            f.write(body[y * row:(y + 1) * row] * 4)
PY
peak() { python3 -c 'import resource,subprocess,sys,time
s=time.time(); rc=subprocess.run(sys.argv[1:]).returncode
print(f"{time.time()-s:.2f} s, {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss} KB peak, rc {rc}")' "$@"; }
for dev in cpu cuda; do
  for r in 1 2; do
    echo "15360x8192 HT encode --device $dev: $(peak "$M" encode -i "$t/large.ppm" -o "$t/large_$dev.j2k" --ht -quiet --device $dev)"
    echo "15360x8192 HT decode --device $dev: $(peak "$M" decode -i "$t/large_$dev.j2k" -o "$t/large_$dev.ppm" -quiet --device $dev)"
  done
done | tee "$OUT/large.txt"
cmp -s "$t/large_cpu.j2k" "$t/large_cuda.j2k" && cmp -s "$t/large_cpu.ppm" "$t/large_cuda.ppm" &&
  echo "large: --device cuda gave --device cpu's files" | tee -a "$OUT/large.txt"
rm -rf "$t"
