#!/usr/bin/env bash
# GPU batch encode (bench/README.md): build with CUDA, GPU tests, batch encode timings (64 copies of the mosaic).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/a.txt
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nproc; uptime; } > $R
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DMALLAT_CUDA=ON -DMALLAT_PYTHON=OFF -DMALLAT_TIFF=OFF > $OUT/cfg.log 2>&1 || { tail -20 $OUT/cfg.log; exit 1; }
cmake --build build-gpu -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
(cd build-gpu && ctest -L gpu -j4 2>&1 | tail -4) >> $R
M=$PWD/build-gpu/tools/mallat
export LD_LIBRARY_PATH=$PWD/.gpu/opj/lib; OPJ=$PWD/.gpu/opj/bin
mkdir -p /tmp/in; for i in $(seq -w 1 64); do cp .gpu/mosaic.ppm /tmp/in/m$i.ppm; done
mkdir -p /tmp/in16; for i in $(seq -w 1 16); do ln -f /tmp/in/m$i.ppm /tmp/in16/m$i.ppm; done
t() { local s=$(date +%s.%N); "$@" > /dev/null 2>&1; local rc=$?; local e=$(date +%s.%N); printf "%8.2f s rc=%d  %s\n" $(awk -v a=$s -v b=$e "BEGIN{print b-a}") $rc "$*" >> $R; }
for opts in "" "-I -r 20"; do
  for dev in cpu cuda; do
    rm -rf /tmp/o; t $M encode -i /tmp/in -o /tmp/o $opts --device $dev -threads 16 -quiet
  done
  $M encode -i .gpu/mosaic.ppm -o /tmp/x.j2k $opts --device cpu -quiet
  cmp /tmp/o/m01.j2k /tmp/x.j2k && echo "cuda batch file == cpu single file ($opts)" >> $R
  t $OPJ/opj_compress -ImgDir /tmp/in16 -OutFor j2k -threads 16 $opts
  ls /tmp/in16/*.j2k | wc -l >> $R
  rm -f /tmp/in16/*.j2k
  for dev in cpu cuda; do
    for i in 1 2 3; do t $M encode -i .gpu/mosaic.ppm -o /tmp/s.j2k $opts --device $dev -threads 16; done
  done
done
$M bench codec .gpu/mosaic.ppm --runs 5 --device cuda -threads 16 > $OUT/bench_cuda.txt 2>&1
$M bench codec .gpu/mosaic.ppm --runs 5 --device cpu -threads 16 > $OUT/bench_cpu.txt 2>&1
cat $R
