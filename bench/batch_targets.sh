#!/usr/bin/env bash
# The GPU batch and HT figures on the GPU machine in one run (docs/PERFORMANCE.md): gcc 13 -Werror full
# build with CUDA, the GPU tests; batches of N (default 64) copies of the 3840x2048 mosaic, lossless and
# -I -r 20, encoded and decoded with --device cpu and cuda alternated (two runs each, outputs compared), OpenJPEG
# -ImgDir on the same N files (one run each); one file cpu against cuda (medians of 7, alternated); HT one thread
# against OpenJPH (ht_single_thread.sh) and, with LARGE=1, at 15360x8192 (the mosaic tiled 4x4, medians of 3).
# EXTRA_ENCODE_ROUNDS=R adds R alternated rounds of the lossless encode at the end (its outputs compared).
# WITH_OPJ=0 leaves OpenJPEG out (opj_batch.sh runs it alone, so that each call stays under the device's 10 minutes).
# Needs .gpu/ (README here). Usage, from the repository root there: [N=64] [LARGE=1] [WITH_OPJ=0] [EXTRA_ENCODE_ROUNDS=5] bash .../batch_targets.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
R=$OUT/final.txt; N=${N:-64}; LARGE=${LARGE:-0}; WITH_OPJ=${WITH_OPJ:-1}; EXTRA_ENCODE_ROUNDS=${EXTRA_ENCODE_ROUNDS:-0}
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "cores: $(nproc)"; g++ --version | head -1; uptime; } > $R
B=build-gpu
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DMALLAT_CUDA=ON -DMALLAT_PYTHON=OFF \
  -DMALLAT_TIFF=OFF -DMALLAT_WERROR=ON > $OUT/cfg.log 2>&1 || { tail -20 $OUT/cfg.log; exit 1; }
if cmake --build $B -j16 > $OUT/build.log 2>&1; then echo "gcc 13 -Werror full build: ok" >> $R;
else echo "gcc 13 -Werror full build: FAILED" >> $R; grep -E "error|warning" $OUT/build.log | head -20 >> $R;
  cmake -S . -B $B -DMALLAT_WERROR=OFF > /dev/null; cmake --build $B -j16 -- -k > $OUT/build2.log 2>&1; fi
echo "built $(date +%T)" >> $R
(cd $B && ctest -L gpu -j4 2>&1 | tail -3; ./tests/codec/codec_test --gtest_filter="DeviceTile*:Stored*" 2>&1 | tail -1) >> $R
M=$PWD/$B/tools/mallat
echo "== HT single thread (ht_single_thread.sh)" >> $R
bash bench/ht_single_thread.sh $M .gpu/mosaic.ppm >> $R 2>&1

. bench/timing.sh
# equal DIR REF EXT TEXT: "TEXT: yes" when every REF file has its equal in DIR, else "no".
equal() { echo "$4: $([ "$(same "$1" "$2" "$3")" = 0 ] && echo yes || echo no)" >> "$R"; }
W=/tmp/bt; rm -rf $W; mkdir -p $W/in
for i in $(seq -f %02g 1 $N); do cp .gpu/mosaic.ppm $W/in/m$i.ppm; done
OPJ=$PWD/.gpu/opj/bin; OPJ_LIB=$PWD/.gpu/opj/lib
opj() { [ "$WITH_OPJ" = 1 ] || return 0; LD_LIBRARY_PATH=$OPJ_LIB per_image "$@"; }
# encode and decode: name|tag|mallat's encode options
for mode in "lossless|lossless|" "-I -r 20|lossy|-I -r 20"; do
  IFS="|" read -r name tag opts <<< "$mode"
  for d in cpu cuda cpu cuda; do rm -rf $W/e_$d; per_image "$N $name encode $d" $M encode -i $W/in -o $W/e_$d -OutFor j2k $opts --device $d -threads 16 -quiet; done
  equal $W/e_cuda $W/e_cpu j2k "$name encode cuda == cpu ($N)"
  rm -rf $W/oe; mkdir $W/oe; cp $W/in/*.ppm $W/oe/
  opj "$N opj_compress $name -threads 16" $OPJ/opj_compress -ImgDir $W/oe -OutFor j2k $opts -threads 16
  for d in cpu cuda cpu cuda; do rm -rf $W/d_$d; per_image "$N $name decode $d" $M decode -i $W/e_cpu -o $W/d_$d -OutFor ppm --device $d -threads 16 -quiet; done
  equal $W/d_cuda $W/d_cpu ppm "$name decode cuda == cpu ($N)"
  [ -z "$opts" ] && { cmp -s $W/d_cpu/m01.ppm .gpu/mosaic.ppm && echo "lossless decode == input" >> $R; }
  rm -rf $W/od; mkdir $W/od; cp $W/e_cpu/*.j2k $W/od/
  opj "$N opj_decompress ($name files) -threads 16" $OPJ/opj_decompress -ImgDir $W/od -OutFor ppm -threads 16
  cp $W/e_cpu/m01.j2k $W/one_$tag.j2k
  rm -rf $W/oe $W/od $W/d_* $W/e_*
done

echo "== one file, --device cpu against cuda, -threads 16, medians of 7 alternated (s)" >> $R
I=.gpu/mosaic.ppm
for job in "lossless_encode encode -i $I -o $W/o.j2k" "lossy_encode encode -i $I -o $W/o.j2k -I -r 20" \
           "lossless_decode decode -i $W/one_lossless.j2k -o $W/o.ppm" "lossy_decode decode -i $W/one_lossy.j2k -o $W/o.ppm"; do
  set -- $job; name=$1; shift
  : > $W/cpu; : > $W/cuda
  for i in 1 2 3 4 5 6 7; do t $M "$@" --device cpu -threads 16 >> $W/cpu; t $M "$@" --device cuda -threads 16 >> $W/cuda; done
  echo "one file $name: cpu $(med < $W/cpu) cuda $(med < $W/cuda)" >> $R
done

if [ "$LARGE" = 1 ]; then
  echo "== HT one thread, 15360x8192 (the mosaic tiled 4x4), medians of 3 alternated (wall s)" >> $R
  python3 - "$I" $W/big.ppm <<'PY'
import sys
d = open(sys.argv[1], 'rb').read()
magic, size, maxval, px = d.split(b'\n', 3)
w, h = map(int, size.split()); rw = w * 3
rows = b''.join(px[r * rw:(r + 1) * rw] * 4 for r in range(h))
with open(sys.argv[2], 'wb') as f:
    f.write(b'P6\n%d %d\n255\n' % (w * 4, h * 4))
    for _ in range(4): f.write(rows)
PY
  export PATH=$PWD/.gpu/ojph/usr/bin:$PATH LD_LIBRARY_PATH=$PWD/.gpu/ojph/lib
  : > $W/me; : > $W/oe; : > $W/md; : > $W/od
  for i in 1 2 3; do t $M encode -i $W/big.ppm -o $W/b.jhc --ht -threads 1 >> $W/me; t ojph_compress -i $W/big.ppm -o $W/b.j2c -reversible true >> $W/oe; done
  for i in 1 2 3; do t $M decode -i $W/b.jhc -o $W/bm.ppm -threads 1 >> $W/md; t ojph_expand -i $W/b.j2c -o $W/bo.ppm >> $W/od; done
  echo "mallat encode $(med < $W/me) decode $(med < $W/md); OpenJPH encode $(med < $W/oe) decode $(med < $W/od)" >> $R
  cmp -s $W/bm.ppm $W/big.ppm && echo "mallat round trip exact" >> $R
  echo "bytes: mallat $(stat -c %s $W/b.jhc), OpenJPH $(stat -c %s $W/b.j2c)" >> $R
fi
if [ "$EXTRA_ENCODE_ROUNDS" -gt 0 ]; then
  echo "== $EXTRA_ENCODE_ROUNDS more rounds, lossless encode, cpu and cuda alternated (ms/image)" >> $R
  : > $W/cpu; : > $W/cuda
  for r in $(seq $EXTRA_ENCODE_ROUNDS); do
    for d in cpu cuda; do
      rm -rf $W/$d.o; timed $M encode -i $W/in -o $W/$d.o -OutFor j2k --device $d -threads 16 -quiet
      echo "$WALL" | awk -v n="$N" '{print $1 * 1000 / n}' >> $W/$d
    done
  done
  echo "cpu: $(tr '\n' ' ' < $W/cpu) median $(med < $W/cpu)" >> $R
  echo "cuda: $(tr '\n' ' ' < $W/cuda) median $(med < $W/cuda)" >> $R
  equal $W/cuda.o $W/cpu.o j2k "cuda == cpu"
fi
rm -rf $W
uptime >> $R; cat $R
