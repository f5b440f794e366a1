#!/usr/bin/env bash
# A GPU batch's fixed cost: N (64) copies of the mosaic encoded or decoded in one command per variant,
# ROUNDS (3) alternated rounds; per run the wall time, when the first and the last output were renamed into place
# (their ctime) and how long the process ran after the last: CUDA's start-up and exit against the files' steady
# pace. Every output of the first round compared with the CPU path's.
# Usage, from the repository root on the GPU machine with .gpu/mosaic.ppm: bash bench/batch_edges.sh
#   [ROUNDS] [VARIANTS]   (VARIANTS: lines "label|kind|options", kind l (-I -r 20 encode) or y (decode of the
#   -I -r 20 files); default: the lossy rows with several --batch-files). BUILD: the build folder
#   (build-gpu; built with CUDA when it has no mallat).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
ROUNDS=${1:-3}
B=${BUILD:-build-gpu}
. bench/timing.sh
ensure_mallat "$B" || exit 1
M=$PWD/$B/tools/mallat
VARIANTS=${2:-}
if [ -z "$VARIANTS" ]; then
  VARIANTS=$OUT/edges_variants.txt
  printf '%s\n' "y_cpu|y|--device cpu" "y_cuda_K3|y|--device cuda --batch-files 3" "y_cuda_K4|y|--device cuda --batch-files 4" \
    "y_cuda_K6|y|--device cuda --batch-files 6" "y_cuda_K8|y|--device cuda --batch-files 8" "y_cuda|y|--device cuda" \
    "l_cpu|l|--device cpu" "l_cuda_K6|l|--device cuda --batch-files 6" "l_cuda_K8|l|--device cuda --batch-files 8" \
    "l_cuda_K12|l|--device cuda --batch-files 12" > "$VARIANTS"
fi
rm -rf /tmp/in; mkdir -p /tmp/in; for i in $(seq -f %03g 1 "${N:-64}"); do cp ${IMG:-.gpu/mosaic.ppm} /tmp/in/m$i.ppm; done
$M encode -i /tmp/in -o /tmp/ref_l -OutFor j2k -I -r 20 -threads 16 -quiet --device cpu
$M decode -i /tmp/ref_l -o /tmp/ref_y -OutFor ppm -threads 16 -quiet --device cpu
sync
E=$OUT/edges.txt; : > "$E"; S=$OUT/same.txt; : > "$S"
edges() {  # round label kind options...
  local round=$1 label=$2 kind=$3 s e ext bad f
  shift 3
  rm -rf /tmp/o; mkdir -p /tmp/o; sync
  s=$(date +%s%N)
  if [ "$kind" = y ]; then $M decode -i /tmp/ref_l -o /tmp/o -OutFor ppm -threads 16 -quiet "$@"; ext=ppm
  else $M encode -i /tmp/in -o /tmp/o -OutFor j2k -I -r 20 -threads 16 -quiet "$@"; ext=j2k; fi
  e=$(date +%s%N)
  edges_line "$label" "$s" "$e" /tmp/o >> "$E"
  if [ "$round" = 1 ]; then
    bad=0; for f in /tmp/ref_$kind/*.$ext; do cmp -s "$f" "/tmp/o/$(basename "$f")" || bad=$((bad + 1)); done
    echo "$label: outputs differing from the CPU path's: $bad" >> "$S"
  fi
}
for r in $(seq 1 "$ROUNDS"); do
  prev=
  while IFS='|' read -r label kind opts; do
    # The first GPU run after a long CPU one is slower: a run not counted
    # first (round 0: nothing compared).
    # shellcheck disable=SC2086
    if [[ "$prev" == *"--device cpu"* && "$opts" != *"--device cpu"* ]]; then E=$OUT/warm.txt edges 0 "$label" "$kind" $opts; fi
    # shellcheck disable=SC2086
    edges "$r" "$label" "$kind" $opts
    prev=$opts
  done < "$VARIANTS"
done
echo "wall ms of the command, ms from its start to the first and last rename, ms from the last rename to its end:" > "$OUT/edges_table.txt"
edges_table "$E" >> "$OUT/edges_table.txt"
cat "$S" "$OUT/edges_table.txt"
