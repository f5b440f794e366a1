#!/usr/bin/env bash
# HT block coder speed before and after a change, one thread: the block
# benchmark (tests/entropy/ht_benchmark, HT_BENCH_PPM: the mosaic's
# code-blocks) and whole processes (lossless -M 64 encode and decode of the
# mosaic, medians of 7: wall, user, sys seconds) against OpenJPH.
#   conformance/device_bench/ht_before_after.sh DIR
# DIR holds base/ and new/ (each a mallat and an ht_benchmark built on the
# VM), lib/ the libraries they load, ojph/ (Debian's openjph-tools with its
# libraries) and mosaic.ppm (conformance/bench_codec.py's 3840x2048).
set -u
D=$1
export LD_LIBRARY_PATH=$D/lib:$D/ojph/lib PATH=$D/ojph/usr/bin:$PATH
W=$(mktemp -d)
echo "cores $(nproc); $(grep -m1 'model name' /proc/cpuinfo); $(uptime)"
for v in base new; do
  HT_BENCH_PPM=$D/mosaic.ppm $D/$v/ht_benchmark --benchmark_filter=Mosaic --benchmark_repetitions=7 \
    --benchmark_report_aggregates_only=true 2>&1 | grep median | sed "s/^/$v /"
done
TIMEFORMAT='%R %U %S'
# Medians of 7 runs of a command, per column (wall, user, sys).
med7() {
  : >"$W/t"
  for _ in 1 2 3 4 5 6 7; do { time "$@" >/dev/null 2>&1; } 2>>"$W/t"; done
  for c in 1 2 3; do sort -n -k$c,$c "$W/t" | awk -v c=$c 'NR == 4 {printf "%s ", $c}'; done
  echo
}
for v in base new; do
  M=$D/$v/mallat
  echo "$v mallat encode 1t $(med7 $M encode -i $D/mosaic.ppm -o $W/$v.jhc --ht -threads 1)"
  echo "$v mallat decode 1t $(med7 $M decode -i $W/$v.jhc -o $W/$v.ppm -threads 1)"
  cmp $W/$v.ppm $D/mosaic.ppm && echo "$v round trip exact; $(stat -c %s $W/$v.jhc) bytes"
done
cmp $W/base.jhc $W/new.jhc && echo "base and new write the same bytes"
echo "new mallat encode 16t $(med7 $D/new/mallat encode -i $D/mosaic.ppm -o $W/n16.jhc --ht)"
echo "new mallat decode 16t $(med7 $D/new/mallat decode -i $W/new.jhc -o $W/n16.ppm)"
echo "ojph encode $(med7 ojph_compress -i $D/mosaic.ppm -o $W/o.j2c -reversible true)"
echo "ojph decode $(med7 ojph_expand -i $W/o.j2c -o $W/o.ppm)"
echo "$(uptime)"
rm -rf "$W"
