#!/usr/bin/env bash
# Device run for what serialises a batch on the GPU (bench/README.md): builds mallat
# with CUDA, then 32 copies of the 3840x2048 mosaic encoded (lossless and -I -r 20) and decoded (lossless) with
# --device cpu and several --device cuda variants (--device-share, --device-slots, --device-rounds,
# --batch-files): first one pass of every variant with MALLAT_TIMELINE (summarised by timeline_summary.py), then
# ROUNDS rounds alternating the variants without it, whole-command wall and user+sys seconds, medians; every
# output compared with --device cpu's.
# Usage, from a tree on the GPU machine with .gpu/mosaic.ppm: bash bench/batch_timeline.sh
#   [ROUNDS] [VARIANT-FILE]   (VARIANT-FILE: lines "label|kind|options", kind e (lossless encode), l (-I -r 20
#   encode), d (decode of the lossless files) or y (decode of the -I -r 20 files); default: the list below). Environment: N files (32), IMG the
#   image copied (.gpu/mosaic.ppm), BUILD the build folder (build-gpu; built when it has no mallat), TESTS=1 builds
#   and runs `ctest -L gpu` and the hybrid coders' and batch tests first.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
ROUNDS=${1:-2}
R=$OUT/batch_timeline.txt
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "cores: $(nproc)"; uptime; } > "$R"
B=${BUILD:-build-gpu}
if [ ! -x $B/tools/mallat ]; then
  cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DMALLAT_CUDA=ON -DMALLAT_PYTHON=OFF \
    -DMALLAT_TIFF=OFF > "$OUT/cfg.log" 2>&1 || { tail -20 "$OUT/cfg.log"; exit 1; }
  cmake --build $B -j16 --target mallat > "$OUT/build.log" 2>&1 || { grep -E "error" -A3 "$OUT/build.log" | head -40; exit 1; }
fi
echo "built $(date +%T)" >> "$R"
if [ -n "${TESTS:-}" ]; then  # TESTS=1: the GPU tests and the hybrid coders' and batch tests first
  cmake --build $B -j16 --target entropy_cuda_test entropy_cuda_decode_test encode_cuda_test dwt_cuda_test \
    hybrid_block_encoder_test hybrid_block_decoder_test batch_cli_test > "$OUT/build_tests.log" 2>&1 ||
    { grep -E "error" -A3 "$OUT/build_tests.log" | head -40; exit 1; }
  (cd $B && ctest -L gpu -j4 2>&1 | grep -E 'tests passed|FAILED|Failed'; ctest -R 'Hybrid|BatchCli' -j8 2>&1 | grep -E 'tests passed|FAILED|Failed') >> "$R"
  echo "tested $(date +%T)" >> "$R"
fi
M=$PWD/$B/tools/mallat
N=${N:-32}
mkdir -p /tmp/in; for i in $(seq -f %02g 1 $N); do cp ${IMG:-.gpu/mosaic.ppm} /tmp/in/m$i.ppm; done
SHARE1="--device cuda --device-share 1"
FREE2="--device-slots 2 --device-rounds free"
TUN="glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=4294967296:glibc.malloc.arena_max=4"
VARIANTS=${2:-}
if [ -z "$VARIANTS" ]; then
  VARIANTS=$OUT/variants.txt
  cat > "$VARIANTS" <<VEOF
e_cpu|e|--device cpu
e_cuda|e|--device cuda
e_s1_win|e|$SHARE1
e_s1_free1|e|$SHARE1 --device-rounds free
e_s1_free2|e|$SHARE1 $FREE2
e_s1_free2_K4|e|$SHARE1 $FREE2 --batch-files 4
e_adapt_free2|e|--device cuda $FREE2
l_cpu|l|--device cpu
l_s1_win|l|$SHARE1
l_s1_free2|l|$SHARE1 $FREE2
l_s1_free2_K4|l|$SHARE1 $FREE2 --batch-files 4
d_cpu|d|--device cpu
d_cuda|d|--device cuda
d_s1_free2|d|$SHARE1 $FREE2
d_adapt_free2|d|--device cuda $FREE2
d_s1_free2_K4|d|$SHARE1 $FREE2 --batch-files 4
VEOF
fi
. bench/timing.sh
# run LABEL KIND OPTIONS: one whole command of the variant into /tmp/o_LABEL.
run() {
  local label=$1 kind=$2 opts=$3
  rm -rf /tmp/o_$label
  case $kind in
    e) once "$T" "$label" $M encode -i /tmp/in -o /tmp/o_$label -OutFor j2k -threads 16 -quiet $opts ;;
    l) once "$T" "$label" $M encode -i /tmp/in -o /tmp/o_$label -OutFor j2k -I -r 20 -threads 16 -quiet $opts ;;
    d) once "$T" "$label" $M decode -i /tmp/ref_e -o /tmp/o_$label -OutFor ppm -threads 16 -quiet $opts ;;
    y) once "$T" "$label" $M decode -i /tmp/ref_l -o /tmp/o_$label -OutFor ppm -threads 16 -quiet $opts ;;
  esac
}
$M encode -i /tmp/in -o /tmp/ref_e -OutFor j2k -threads 16 -quiet --device cpu
$M encode -i /tmp/in -o /tmp/ref_l -OutFor j2k -I -r 20 -threads 16 -quiet --device cpu
$M decode -i /tmp/ref_e -o /tmp/ref_d -OutFor ppm -threads 16 -quiet --device cpu
$M decode -i /tmp/ref_l -o /tmp/ref_y -OutFor ppm -threads 16 -quiet --device cpu
# The timeline pass (the stages then run one by one, timed: a little slower).
T=$OUT/timeline_pass.txt; : > "$T"
mkdir -p /tmp/tl
while IFS='|' read -r label kind opts; do
  MALLAT_TIMELINE=/tmp/tl/$label.csv run "$label" "$kind" "$opts"
  ext=j2k; case $kind in d|y) ext=ppm ;; esac
  echo "$label: files differing from cpu's: $(same /tmp/o_$label /tmp/ref_$kind $ext)" >> "$R"
done < "$VARIANTS"
T=$OUT/times.txt; : > "$T"
for round in $(seq 1 "$ROUNDS"); do
  prev=
  while IFS='|' read -r label kind opts; do
    # The first GPU run after a long CPU one is slower: a run not counted
    # first.
    if [[ "$prev" == *"--device cpu"* && "$opts" != *"--device cpu"* ]]; then T=$OUT/warm.txt run "$label" "$kind" "$opts"; fi
    run "$label" "$kind" "$opts"
    prev=$opts
  done < "$VARIANTS"
done
echo "batch of $N, medians of $ROUNDS alternating rounds (wall s, user+sys s, all walls):" >> "$R"
medians_table "$T" "$N" >> "$R"
echo "timeline pass (wall s, user+sys s):" >> "$R"; cat "$OUT/timeline_pass.txt" >> "$R"
uptime >> "$R"
python3 bench/timeline_summary.py /tmp/tl/*.csv > "$OUT/timeline_summary.txt" 2>&1
tar -czf "$OUT/timelines.tgz" -C /tmp/tl .
cat "$R"
