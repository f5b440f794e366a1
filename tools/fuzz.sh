#!/usr/bin/env bash
# Builds the fuzz targets of fuzz/ with clang, libFuzzer, ASan and UBSan, and
# runs each for a given time, seeded from ../shared/testdata.
#   tools/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
# Targets: codestream jp2 htj2k ht_block png tiff pnm pgx bmp (default: all). Corpora grow
# in build-fuzz/corpus/<target>; a crashing input is copied to
# fuzz/regressions/<target>/, where the normal build replays it as a test
# (fuzz/CMakeLists.txt). Environment: BUILD_DIR (default build-fuzz).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(codestream jp2 htj2k ht_block png tiff pnm pgx bmp)
build=${BUILD_DIR:-build-fuzz}
data=../shared/testdata

command -v clang++ >/dev/null || { echo "fuzz.sh: needs clang (apt-get install clang)" >&2; exit 2; }
sanitizers="address,undefined"
CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DMALLAT_FUZZ=ON -DMALLAT_CUDA=OFF -DMALLAT_BUILD_TESTS=OFF \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,$sanitizers -fno-sanitize-recover=undefined -fno-omit-frame-pointer" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=$sanitizers" >/dev/null
cmake --build "$build" -j "$(nproc)" --target $(printf 'fuzz_%s ' "${targets[@]}")

seeds() {
  case $1 in
    codestream|jp2) echo "$data/conformance $data/malformed" ;;
    htj2k|ht_block) echo "$data/conformance/htj2k" ;;
    png) echo "$data/images/pngsuite" ;;
    pgx) echo "$data/conformance/reference" ;;
    *) echo "$data/images" ;;
  esac
}

status=0
for t in "${targets[@]}"; do
  corpus=$build/corpus/$t
  crashes=$build/crashes/$t
  rm -rf "$crashes"
  mkdir -p "$corpus" "$crashes"
  echo "== fuzz_$t for ${seconds}s"
  # shellcheck disable=SC2046
  if ! "$build/fuzz/fuzz_$t" "$corpus" $(seeds "$t") -max_total_time="$seconds" \
       -timeout=10 -rss_limit_mb=2048 -max_len=200000 \
       -artifact_prefix="$crashes/" -print_final_stats=1 2>"$build/fuzz_$t.log"; then
    status=1
  fi
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|^#.*DONE" "$build/fuzz_$t.log" || tail -5 "$build/fuzz_$t.log"
  if compgen -G "$crashes/*" >/dev/null; then
    mkdir -p "fuzz/regressions/$t"
    cp "$crashes"/* "fuzz/regressions/$t/"
    echo "fuzz_$t: findings copied to fuzz/regressions/$t/ (log: $build/fuzz_$t.log)"
    status=1
  fi
done
exit $status
