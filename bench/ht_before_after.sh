#!/usr/bin/env bash
# HT block coder speed before and after a change, one thread: the block
# benchmark (tests/entropy/ht_benchmark, HT_BENCH_PPM: the mosaic's
# code-blocks) and whole processes (lossless -M 64 encode and decode of the
# mosaic: wall, user, sys seconds) against OpenJPH. The two builds take
# turns run by run (a shared host drifts), medians of 7.
#   bench/ht_before_after.sh DIR
# DIR holds base/ and new/ (each a mallat and an ht_benchmark built on the
# VM), lib/ the libraries they load, ojph/ (Debian's openjph-tools with its
# libraries) and mosaic.ppm (bench/bench_codec.py's 3840x2048).
set -u
D=$1
export LD_LIBRARY_PATH=$D/lib:$D/ojph/lib PATH=$D/ojph/usr/bin:$PATH
W=$(mktemp -d)
echo "cores $(nproc); $(grep -m1 'model name' /proc/cpuinfo); $(uptime)"
for _ in 1 2 3 4 5 6 7; do
  for v in base new; do
    HT_BENCH_PPM=$D/mosaic.ppm $D/$v/ht_benchmark --benchmark_filter=Mosaic --benchmark_min_time=0.5 2>/dev/null |
      awk -v v=$v '/^BM_/ {print v, $1, $4}' >>"$W/blocks"
  done
done
# Median CPU ms per build and benchmark.
sort -k1,2 -k3n "$W/blocks" | awk '{k = $1 " " $2; n[k]++; a[k, n[k]] = $3} END {for (k in n) print k, a[k, int((n[k] + 1) / 2)], "ms"}' | sort -k2,2 -k1,1
TIMEFORMAT='%R %U %S'
# One timed run appended to $W/<name>.
run() {
  local name=$1
  shift
  { time "$@" >/dev/null 2>&1; } 2>>"$W/$name"
}
# Per column (wall, user, sys) median of the runs in $W/<name>.
med() {
  for c in 1 2 3; do sort -n -k$c,$c "$W/$1" | awk -v c=$c -v m=$(( ($(wc -l <"$W/$1") + 1) / 2 )) 'NR == m {printf "%s ", $c}'; done
  echo
}
for v in base new; do $D/$v/mallat encode -i $D/mosaic.ppm -o $W/$v.jhc --ht -threads 1; done
ojph_compress -i $D/mosaic.ppm -o $W/o.j2c -reversible true >/dev/null
for _ in 1 2 3 4 5 6 7; do
  for v in base new; do
    run $v.enc $D/$v/mallat encode -i $D/mosaic.ppm -o $W/$v.jhc --ht -threads 1
    run $v.dec $D/$v/mallat decode -i $W/$v.jhc -o $W/$v.ppm -threads 1
  done
  run ojph.enc ojph_compress -i $D/mosaic.ppm -o $W/o.j2c -reversible true
  run ojph.dec ojph_expand -i $W/o.j2c -o $W/o.ppm
done
for n in base.enc new.enc ojph.enc base.dec new.dec ojph.dec; do echo "$n 1 thread (wall user sys): $(med $n)"; done
for v in base new; do cmp $W/$v.ppm $D/mosaic.ppm && echo "$v round trip exact; $(stat -c %s $W/$v.jhc) bytes"; done
cmp $W/base.jhc $W/new.jhc && echo "base and new write the same bytes"
echo "$(uptime)"
rm -rf "$W"
