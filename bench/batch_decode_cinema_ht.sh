#!/usr/bin/env bash
# After batch_encode.sh on the same machine: batch decode timings, cinema frames, HT against OpenJPH.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/b.txt; : > $R
M=$PWD/build-gpu/tools/mallat
OPJ=$PWD/.gpu/opj/bin
t() { local s=$(date +%s.%N); "$@" > /dev/null 2>&1; local rc=$?; local e=$(date +%s.%N); printf "%8.2f s rc=%d  %s\n" $(awk -v a=$s -v b=$e "BEGIN{print b-a}") $rc "$*" >> $R; }
for opts in "" "-I -r 20"; do
  rm -rf /tmp/c /tmp/c16; mkdir -p /tmp/c16
  $M encode -i /tmp/in -o /tmp/c $opts -threads 16 -quiet --device cpu
  for i in $(seq -w 1 16); do cp /tmp/c/m$i.j2k /tmp/c16/; done
  for dev in cpu cuda; do rm -rf /tmp/d; t $M decode -i /tmp/c -o /tmp/d -OutFor ppm --device $dev -threads 16 -quiet; done
  cmp /tmp/d/m01.ppm <($M decode -i /tmp/c/m01.j2k -o /tmp/y.ppm --device cpu -quiet && cat /tmp/y.ppm) && echo "cuda batch decode == cpu ($opts)" >> $R
  LD_LIBRARY_PATH=$PWD/.gpu/opj/lib t $OPJ/opj_decompress -ImgDir /tmp/c16 -OutFor ppm -threads 16
  for dev in cpu cuda; do for i in 1 2 3; do t $M decode -i /tmp/c/m01.j2k -o /tmp/y.ppm --device $dev -threads 16; done; done
done
# Cinema frames from the mosaic at 12 bits: 4K-sized 3840x2048, and its 2048x1080 corner.
$M encode -i .gpu/mosaic.ppm -o /tmp/m.j2k -quiet
$M decode -i /tmp/m.j2k -o /tmp/f4k.ppm -p 12S -quiet
$M decode -i /tmp/m.j2k -o /tmp/f2k.ppm -p 12S -d 0,0,2048,1080 -quiet
ls -l /tmp/f4k.ppm /tmp/f2k.ppm >> $R
for dev in cpu cuda; do
  for i in 1 2 3; do t $M encode -i /tmp/f2k.ppm -o /tmp/c2k.j2c -cinema2K 24 --device $dev -threads 16; done
  for i in 1 2 3; do t $M encode -i /tmp/f4k.ppm -o /tmp/c4k.j2c -cinema4K --device $dev -threads 16; done
done
ls -l /tmp/c2k.j2c /tmp/c4k.j2c >> $R
for i in 1 2 3; do LD_LIBRARY_PATH=$PWD/.gpu/opj/lib t $OPJ/opj_compress -i /tmp/f2k.ppm -o /tmp/o2k.j2c -cinema2K 24 -threads 16; done
for i in 1 2 3; do LD_LIBRARY_PATH=$PWD/.gpu/opj/lib t $OPJ/opj_compress -i /tmp/f4k.ppm -o /tmp/o4k.j2c -cinema4K -threads 16; done
bash bench/ht_single_thread.sh $M .gpu/mosaic.ppm >> $R 2>&1
cat $R
