#!/usr/bin/env bash
# Issue 15 and 14 targets on the lent GPU machine in one run: gcc 13 -Werror full build with CUDA, the GPU tests,
# HT single thread against OpenJPH (ht_single_thread.sh), batches of 32 mosaics lossless and -I -r 20, encode and
# decode, --device cpu and cuda alternated (outputs compared), OpenJPEG -ImgDir on 8. Needs .gpu/ (README here).
# Usage, from the repository root there: bash conformance/device_bench/batch_targets.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
R=$OUT/final.txt
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "cores: $(nproc)"; g++ --version | head -1; uptime; } > $R
B=build-gpu
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DMALLAT_CUDA=ON -DMALLAT_PYTHON=OFF \
  -DMALLAT_TIFF=OFF -DMALLAT_WERROR=ON > $OUT/cfg.log 2>&1 || { tail -20 $OUT/cfg.log; exit 1; }
if cmake --build $B -j16 > $OUT/build.log 2>&1; then echo "gcc 13 -Werror full build: ok" >> $R;
else echo "gcc 13 -Werror full build: FAILED" >> $R; grep -E "error|warning" $OUT/build.log | head -20 >> $R;
  cmake -S . -B $B -DMALLAT_WERROR=OFF > /dev/null; cmake --build $B -j16 -- -k > $OUT/build2.log 2>&1; fi
echo "built $(date +%T)" >> $R
(cd $B && ctest -L gpu -j4 2>&1 | tail -3) >> $R
(cd $B && ctest -R "Stream|stream|Strip|Hybrid|BatchCli|Spill|spill|Tier1Shared|Ht|HT" -j16 2>&1 | grep -E "tests passed|Failed|\*\*\*" | head) >> $R
M=$PWD/$B/tools/mallat
echo "== HT single thread (ht_single_thread.sh)" >> $R
bash conformance/device_bench/ht_single_thread.sh $M .gpu/mosaic.ppm >> $R 2>&1
once() {
  local label=$1; shift
  local t0 t1; t0=$(date +%s.%N)
  ( TIMEFORMAT='%U %S'; time "$@" > /dev/null 2>> "$OUT/errors.log" ) 2> "$OUT/t.tmp"
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" -v l="$label" '{printf "%-34s wall %.2f s (%.1f ms/image), user+sys %.1f s\n", l, b-a, (b-a)*1000/N, $1+$2}' N=$N "$OUT/t.tmp" >> $R
}
N=32; mkdir -p /tmp/in; for i in $(seq -f %02g 1 $N); do cp .gpu/mosaic.ppm /tmp/in/m$i.ppm; done
for d in cpu cuda cpu cuda; do rm -rf /tmp/e_$d; once "batch $N lossless encode $d" $M encode -i /tmp/in -o /tmp/e_$d -OutFor j2k --device $d -threads 16 -quiet; done
s=yes; for f in /tmp/e_cpu/*.j2k; do cmp -s $f /tmp/e_cuda/$(basename $f) || s=no; done; echo "encode cuda == cpu (all $N): $s" >> $R
for d in cpu cuda cpu cuda; do rm -rf /tmp/d_$d; once "batch $N lossless decode $d" $M decode -i /tmp/e_cpu -o /tmp/d_$d -OutFor ppm --device $d -threads 16 -quiet; done
s=yes; for f in /tmp/d_cpu/*.ppm; do cmp -s $f /tmp/d_cuda/$(basename $f) || s=no; done; cmp -s /tmp/d_cpu/m05.ppm .gpu/mosaic.ppm || s="$s (but not the input!)"; echo "decode cuda == cpu (all $N), == input: $s" >> $R
export LD_LIBRARY_PATH=$PWD/.gpu/opj/lib; N=8; mkdir -p /tmp/in8; for i in $(seq -f %02g 1 8); do cp .gpu/mosaic.ppm /tmp/in8/m$i.ppm; done
once "opj_compress 8 -threads 16" .gpu/opj/bin/opj_compress -ImgDir /tmp/in8 -OutFor j2k -threads 16
mkdir -p /tmp/od; for i in $(seq -f %02g 1 8); do cp /tmp/e_cpu/m$i.j2k /tmp/od/; done
once "opj_decompress 8 -threads 16" .gpu/opj/bin/opj_decompress -ImgDir /tmp/od -OutFor ppm -threads 16
# -I -r 20: the same batch of 32, and OpenJPEG on 8 (lossy_s5 part)
unset LD_LIBRARY_PATH; N=32; mkdir -p /tmp/in; for i in $(seq -f %02g 1 $N); do [ -f /tmp/in/m$i.ppm ] || cp .gpu/mosaic.ppm /tmp/in/m$i.ppm; done
for d in cpu cuda cpu cuda; do rm -rf /tmp/l_$d; once "batch $N -I -r 20 encode $d" $M encode -i /tmp/in -o /tmp/l_$d -OutFor j2k -I -r 20 --device $d -threads 16 -quiet; done
s=yes; for f in /tmp/l_cpu/*.j2k; do cmp -s $f /tmp/l_cuda/$(basename $f) || s=no; done; echo "lossy encode cuda == cpu (all $N): $s" >> $R
for d in cpu cuda cpu cuda; do rm -rf /tmp/ld_$d; once "batch $N -I -r 20 decode $d" $M decode -i /tmp/l_cpu -o /tmp/ld_$d -OutFor ppm --device $d -threads 16 -quiet; done
s=yes; for f in /tmp/ld_cpu/*.ppm; do cmp -s $f /tmp/ld_cuda/$(basename $f) || s=no; done; echo "lossy decode cuda == cpu (all $N): $s" >> $R
export LD_LIBRARY_PATH=$PWD/.gpu/opj/lib; N=8; rm -rf /tmp/lo; mkdir -p /tmp/lo; for i in $(seq -f %02g 1 8); do cp .gpu/mosaic.ppm /tmp/lo/m$i.ppm; done
once "opj_compress 8 -I -r 20" .gpu/opj/bin/opj_compress -ImgDir /tmp/lo -OutFor j2k -I -r 20 -threads 16
rm -rf /tmp/lod; mkdir -p /tmp/lod; for i in $(seq -f %02g 1 8); do cp /tmp/l_cpu/m$i.j2k /tmp/lod/; done
once "opj_decompress 8 (-I -r 20 files)" .gpu/opj/bin/opj_decompress -ImgDir /tmp/lod -OutFor ppm -threads 16

uptime >> $R; cat $R
