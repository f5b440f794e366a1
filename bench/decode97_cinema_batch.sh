#!/usr/bin/env bash
# 9/7 decode on CUDA against the CPU (peak error); cinema frames in a batch (frames a second).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p $OUT; R=$OUT/c.txt; : > $R
if [ ! -x build-gpu/tools/mallat ]; then
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DMALLAT_CUDA=ON -DMALLAT_PYTHON=OFF -DMALLAT_TIFF=OFF > $OUT/cfg.log 2>&1
  cmake --build build-gpu -j16 --target mallat > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
fi
M=$PWD/build-gpu/tools/mallat
t() { local s=$(date +%s.%N); "$@" > /dev/null 2>&1; local rc=$?; local e=$(date +%s.%N); printf "%8.2f s rc=%d  %s\n" $(awk -v a=$s -v b=$e "BEGIN{print b-a}") $rc "$*" >> $R; }
for opts in "-I -r 20" "-I" "-I -r 80"; do
  $M encode -i .gpu/mosaic.ppm -o /tmp/l.j2k $opts -quiet
  $M decode -i /tmp/l.j2k -o /tmp/lc.ppm --device cpu -quiet
  $M decode -i /tmp/l.j2k -o /tmp/lg.ppm --device cuda -quiet
  echo "9/7 decode cuda vs cpu ($opts):" >> $R; $M compare /tmp/lc.ppm /tmp/lg.ppm | tail -1 >> $R
done
$M encode -i .gpu/mosaic.ppm -o /tmp/m.j2k -quiet
$M decode -i /tmp/m.j2k -o /tmp/f2k.ppm -p 12S -d 0,0,2048,1080 -quiet
$M decode -i /tmp/m.j2k -o /tmp/f4k.ppm -p 12S -quiet
mkdir -p /tmp/c2 /tmp/c4; for i in $(seq -w 1 48); do cp /tmp/f2k.ppm /tmp/c2/f$i.ppm; done; for i in $(seq -w 1 24); do cp /tmp/f4k.ppm /tmp/c4/f$i.ppm; done
for dev in cpu cuda; do
  rm -rf /tmp/o2; t $M encode -i /tmp/c2 -o /tmp/o2 -OutFor j2c -cinema2K 24 --device $dev -threads 16 -quiet
  rm -rf /tmp/o4; t $M encode -i /tmp/c4 -o /tmp/o4 -OutFor j2c -cinema4K --device $dev -threads 16 -quiet
done
ls -l /tmp/o2 | head -3 >> $R
cat $R
