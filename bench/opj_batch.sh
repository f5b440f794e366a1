#!/usr/bin/env bash
# OpenJPEG's side of the GPU batch figures without building mallat (batch_targets.sh with OPJ=0 runs mallat's):
# opj_compress -ImgDir on N (default 64) copies of the mosaic, lossless and -I -r 20, and opj_decompress -ImgDir on N
# copies of a mallat codestream of each (made with `mallat encode -i MOSAIC -o F.j2k [-I -r 20]`, the bytes both
# --device paths write), one run each, -threads 16. Needs .gpu/opj (README here). Usage, from the repository root:
# [N=64] bash .../opj_batch.sh MOSAIC.ppm LOSSLESS.j2k LOSSY.j2k
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
R=$OUT/opj.txt; N=${N:-64}
{ nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null; echo "cores: $(nproc)"; date -u; uptime; } > $R
. bench/timing.sh
OPJ=$PWD/.gpu/opj/bin; export LD_LIBRARY_PATH=$PWD/.gpu/opj/lib
W=/tmp/ob; rm -rf $W; mkdir -p $W
copies() {  # copies SOURCE DIR EXT: N copies of SOURCE in DIR
  rm -rf "$2"; mkdir -p "$2"
  for i in $(seq -f %02g 1 $N); do cp "$1" "$2/m$i.$3"; done
}
copies "$1" $W/in ppm
per_image "$N opj_compress lossless -threads 16" $OPJ/opj_compress -ImgDir $W/in -OutFor j2k -threads 16
rm -f $W/in/*.j2k
per_image "$N opj_compress -I -r 20 -threads 16" $OPJ/opj_compress -ImgDir $W/in -OutFor j2k -I -r 20 -threads 16
copies "$2" $W/dl j2k
per_image "$N opj_decompress (lossless files) -threads 16" $OPJ/opj_decompress -ImgDir $W/dl -OutFor ppm -threads 16
copies "$3" $W/dy j2k
per_image "$N opj_decompress (-I -r 20 files) -threads 16" $OPJ/opj_decompress -ImgDir $W/dy -OutFor ppm -threads 16
rm -rf $W
uptime >> $R; cat $R
