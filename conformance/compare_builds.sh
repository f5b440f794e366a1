#!/usr/bin/env bash
# compare_builds.sh: proves that two builds of mallat write the same bytes.
#
#   conformance/compare_builds.sh [--baseline-bin PATH | --baseline-ref GITREF]
#                                 [--candidate-bin PATH] [--out DIR]
#
# Runs a baseline and a candidate `mallat` over one fixed set of inputs and
# options and compares every output byte for byte (cmp): the encoded .j2k/.jp2
# files, their decodes (each file decoded by the binary that wrote it), and
# decodes of the shared ISO conformance streams. Also compared: each command's
# exit status and everything it prints on stderr (warnings, notes, errors),
# since the command runs in its case's folder with relative output names and
# absolute input names, so the text is the same for both builds.
#
# --baseline-ref GITREF  builds that commit's `mallat` target in a temporary git
#                        worktree (Release, tests and CUDA off), copies the binary
#                        to DIR/bin/ (reuse it with --baseline-bin) and removes
#                        the worktree. Default: --baseline-ref HEAD.
# --baseline-bin PATH    use an existing binary.
# --candidate-bin PATH   default: build/tools/mallat of this checkout, configured
#                        the same way if build/ is missing, and brought up to date
#                        with `cmake --build build --target mallat` if it exists
#                        (so that a stale binary cannot pass).
# --out DIR              keep the outputs there (DIR/baseline, DIR/candidate,
#                        DIR/report.txt; those are replaced on each run). Without
#                        it a temporary folder is used, kept only if a case fails.
#
# Prints one line per case, `same` or `DIFFERENT` (with the files that differ),
# then `N passed, M failed` alone on the last line. Exit status: 0 when every
# case is the same, 1 when any differs, 2 for a usage, set-up or build failure.
#
# A command that fails (non-zero exit) in both builds with the same exit status
# and the same stderr, leaving the same files, counts as same: the line says
# `same (fails in both: ...)` and a count of them precedes the summary. A
# failure in one build only, a different message, or a timeout (120 s a
# command) is DIFFERENT. At the commit that added this script no command of
# the set fails.
#
# Multi-threading: the `threads-*` cases also check inside each build that
# -threads 1 and -threads 2 give the same bytes (encode and decode); any other
# command uses the default thread count.
#
# The encoder's COM marker is the constant "Created by mallat"
# (EncodeOptions::comment in codec/codec.h): no version or date, and the
# command line has no option to change it, so nothing needs pinning.
#
# Needs bash, cmp, git and cmake (for building); not the OpenJPEG tools. The
# shared test data is read from ../shared/testdata seen from the checkout
# (MALLAT_TESTDATA_DIR overrides). JOBS overrides the build's -j (default nproc).
set -uo pipefail
export LC_ALL=C

usage() { sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "$0"; }
die() { echo "compare_builds: $*" >&2; exit 2; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
TESTDATA=${MALLAT_TESTDATA_DIR:-$ROOT/../shared/testdata}
JOBS=${JOBS:-$(nproc)}
CMD_TIMEOUT=120

baseline_bin="" baseline_ref="" candidate_bin="" out=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --baseline-bin) baseline_bin=${2:?--baseline-bin needs a path}; shift 2 ;;
    --baseline-ref) baseline_ref=${2:?--baseline-ref needs a git ref}; shift 2 ;;
    --candidate-bin) candidate_bin=${2:?--candidate-bin needs a path}; shift 2 ;;
    --out) out=${2:?--out needs a folder}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument '$1'" ;;
  esac
done
[[ -n $baseline_bin && -n $baseline_ref ]] && die "give --baseline-bin or --baseline-ref, not both"
[[ -z $baseline_bin && -z $baseline_ref ]] && baseline_ref=HEAD
[[ -d $TESTDATA/images && -d $TESTDATA/conformance ]] ||
  die "no shared test data at $TESTDATA (set MALLAT_TESTDATA_DIR)"
TESTDATA=$(cd "$TESTDATA" && pwd -P)

keep_out=1
if [[ -z $out ]]; then
  out=$(mktemp -d "${TMPDIR:-/tmp}/mallat-compare.XXXXXX") || die "mktemp failed"
  keep_out=0
fi
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd -P)
rm -rf "$out/baseline" "$out/candidate" "$out/report.txt"

# --- the binaries --------------------------------------------------------------

worktree=""
cleanup() {
  if [[ -n $worktree ]]; then
    git -C "$ROOT" worktree remove --force "$worktree" >/dev/null 2>&1 || true
    rm -rf "$(dirname "$worktree")"
    git -C "$ROOT" worktree prune >/dev/null 2>&1 || true
  fi
}
trap cleanup EXIT
trap 'exit 2' INT TERM

# build_mallat SOURCE BUILD LOG: the mallat target only, as the brief of this
# script says (Release, no tests, no CUDA); configures only a missing build dir.
build_mallat() {
  local src=$1 build=$2 log=$3
  if [[ ! -f $build/CMakeCache.txt ]]; then
    cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DMALLAT_BUILD_TESTS=OFF \
      -DMALLAT_CUDA=OFF >>"$log" 2>&1 || return 1
  fi
  cmake --build "$build" --target mallat -j"$JOBS" >>"$log" 2>&1
}

mkdir -p "$out/bin"
if [[ -n $baseline_ref ]]; then
  sha=$(git -C "$ROOT" rev-parse --verify --quiet "$baseline_ref^{commit}") ||
    die "'$baseline_ref' is not a commit of $ROOT"
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/mallat-baseline.XXXXXX") || die "mktemp failed"
  worktree=$tmp/src
  echo "baseline: building $baseline_ref (${sha:0:12}) in a temporary worktree ($tmp) ..."
  git -C "$ROOT" worktree add --detach "$worktree" "$sha" >"$out/bin/build-${sha:0:12}.log" 2>&1 ||
    die "git worktree add failed (see $out/bin/build-${sha:0:12}.log)"
  build_mallat "$worktree" "$worktree/build" "$out/bin/build-${sha:0:12}.log" ||
    die "baseline build failed (see $out/bin/build-${sha:0:12}.log)"
  baseline_bin=$out/bin/mallat-${sha:0:12}
  cp "$worktree/build/tools/mallat" "$baseline_bin" || die "cannot copy the baseline binary"
  cleanup
  worktree=""
  [[ $keep_out == 1 ]] && echo "baseline: $baseline_bin (next time: --baseline-bin $baseline_bin)"
fi
if [[ -z $candidate_bin ]]; then
  echo "candidate: building $ROOT/build (target mallat) ..."
  build_mallat "$ROOT" "$ROOT/build" "$out/bin/build-candidate.log" ||
    die "candidate build failed (see $out/bin/build-candidate.log)"
  candidate_bin=$ROOT/build/tools/mallat
fi
for b in "$baseline_bin" "$candidate_bin"; do
  [[ -f $b && -x $b ]] || die "not an executable file: $b"
done
baseline_bin=$(cd "$(dirname "$baseline_bin")" && pwd -P)/$(basename "$baseline_bin")
candidate_bin=$(cd "$(dirname "$candidate_bin")" && pwd -P)/$(basename "$candidate_bin")
echo "baseline:  $baseline_bin"
echo "candidate: $candidate_bin"
if cmp -s "$baseline_bin" "$candidate_bin"; then
  echo "note: the two binaries are byte-identical"
fi

# --- the fixed set of cases ----------------------------------------------------

# Images: key, file under the test data, extension to decode to. Small ones,
# uncropped: an 8-bit RGB photo, an 8-bit grey image, a 16-bit RGB image.
IMAGES=(
  "rgb   images/Bretagne1.ppm          ppm"
  "grey  images/pngsuite/basn0g08.png  pgm"
  "rgb16 images/pngsuite/basn2c16.png  pgx"
)

# Encode cases, run on every image: name | output extension | encoder options
# | decoder options of each extra decode (the full decode always runs).
# 3 layers (-r 40,10,1, the last lossless) where the order of packets or the
# layers matter; -t 24,20 gives several tiles on the 32x32 images too.
ENCODE_CASES=(
  "lossless          | j2k | "
  "resolutions-1     | j2k | -n 1"
  "resolutions-3     | j2k | -n 3 | -r 1 | -r 2"
  "order-LRCP        | j2k | -p LRCP -n 5 -c [128,128],[64,64] -r 40,10,1 | -l 1 | -r 1"
  "order-RLCP        | j2k | -p RLCP -n 5 -c [128,128],[64,64] -r 40,10,1 | -l 1 | -r 1"
  "order-RPCL        | j2k | -p RPCL -n 5 -c [128,128],[64,64] -r 40,10,1 | -l 1 | -r 1"
  "order-PCRL        | j2k | -p PCRL -n 5 -c [128,128],[64,64] -r 40,10,1 | -l 1 | -r 1"
  "order-CPRL        | j2k | -p CPRL -n 5 -c [128,128],[64,64] -r 40,10,1 | -l 1 | -r 1"
  "tiles             | j2k | -t 200,144 | -t 0"
  "tiles-origin      | j2k | -t 24,20 -T 3,1 -d 7,2 | -t 0 | -t 3 | -r 1"
  "precincts         | j2k | -c [64,64],[32,32],[16,16] -r 30,1 | -l 1"
  "codeblock-32x16   | j2k | -b 32,16"
  "codeblock-1024x4  | j2k | -b 1024,4"
  "codeblock-4x4     | j2k | -b 4,4 -c [16,16],[8,8]"
  "mode-BYPASS       | j2k | -M 1 -r 30,10,1 | -l 1"
  "mode-RESET        | j2k | -M 2 -r 30,10,1 | -l 1"
  "mode-TERMALL      | j2k | -M 4 -r 30,10,1 | -l 1"
  "mode-VSC          | j2k | -M 8 -r 30,10,1 | -l 1"
  "mode-ERTERM       | j2k | -M 16 -r 30,10,1 | -l 1"
  "mode-SEGMARK      | j2k | -M 32 -r 30,10,1 | -l 1"
  "mode-all-63       | j2k | -M 63 -r 30,10,1 | -l 1"
  "mode-13-lossy     | j2k | -I -M 13 -r 30,10 | -l 1"
  "sop-eph           | j2k | -SOP -EPH -t 200,144 -r 40,10,1 | -l 2"
  "tlm-plt           | j2k | -TLM -PLT -t 200,144 -r 40,10,1 | -l 1"
  "poc               | j2k | -r 40,10,1 -POC T1=0,0,1,6,3,RLCP/T1=0,0,3,6,3,CPRL | -l 1"
  "poc-tiles         | j2k | -t 24,20 -r 40,10,1 -POC T1=0,0,1,6,3,RLCP/T2=0,0,3,6,3,CPRL | -t 1"
  "tile-parts-R      | j2k | -TP R -TLM -t 200,144 -r 40,10,1 | -r 1"
  "tile-parts-L      | j2k | -TP L -t 200,144 -r 40,10,1 | -l 1"
  "tile-parts-C      | j2k | -TP C -t 200,144 -p CPRL"
  "ppm               | j2k | --ppm -TP R -t 200,144 -r 40,10,1 | -l 1"
  "ppt               | j2k | --ppt -TP R -t 200,144 -r 40,10,1 | -l 1"
  "roi               | j2k | -ROI c=0,U=5"
  "roi-lossy         | j2k | -I -r 20 -ROI c=0,U=7"
  "lossy-ratio       | j2k | -I -r 20,10 | -l 1 | -r 1 | -r 2 -l 1"
  "lossy-psnr        | j2k | -I -q 35,40 | -l 1"
  "lossy-bpp         | j2k | -I --bpp 0.5,1.5 | -l 1"
  "lossy-derived     | j2k | -I --quant derived -r 20"
  "lossy-guard-bits  | j2k | -I -GuardBits 1 -r 20"
  "reversible-ratio  | j2k | -r 20,10 | -l 1"
  "reversible-psnr   | j2k | -q 30,40 | -l 1"
  "mct-off           | j2k | -mct 0"
  "jp2-lossless      | jp2 | "
  "jp2-lossy         | jp2 | -I -r 20,10 | -l 1"
)
# Thread cases, on every image: encoder options; encoded and decoded with
# -threads 1 and -threads 2, which must agree inside each build.
THREAD_CASES=(
  "threads-lossless  | -t 200,144"
  "threads-lossy     | -I -r 20,10 -M 5"
)
# Conformance streams: every p0_*/p1_* codestream decoded to PGX, every JP2
# file to PGX and PNM; then these extra decodes: name | file | output | options.
CONFORMANCE_EXTRA=(
  "p0_08-reduce-1    | p0_08.j2k | out.pgx | -r 1"
  "p0_03-tile-2      | p0_03.j2k | out.pgx | -t 2"
  "p1_04-tile-9      | p1_04.j2k | out.pgx | -t 9"
  "p1_04-reduce-2    | p1_04.j2k | out.pgx | -r 2"
  "p1_05-layers-1    | p1_05.j2k | out.pgx | -l 1"
  "p1_06-reduce-1    | p1_06.j2k | out.ppm | -r 1"
  "file5-icc-to-srgb | file5.jp2 | out.ppm | --icc-to-srgb"
  "file7-icc-to-srgb | file7.jp2 | out.ppm | --icc-to-srgb"
  "file9-force-rgb   | file9.jp2 | out.ppm | -force-rgb"
)

trim() { local s=$1; s=${s#"${s%%[![:space:]]*}"}; s=${s%"${s##*[![:space:]]}"}; printf '%s' "$s"; }

# --- running one side ----------------------------------------------------------

# Each case gets a folder SIDE/CASE; its commands run there and append to its
# run.log: the command line (binary written as `mallat`), stderr, exit status.
BIN="" SIDE_DIR="" CASE_DIR=""

begin_case() {
  CASE_DIR=$SIDE_DIR/$1
  mkdir -p "$CASE_DIR"
  echo "$1" >>"$SIDE_DIR/cases.txt"
}

# m ARGS...: runs `mallat ARGS` in the case folder.
m() {
  local err rc
  err=$(cd "$CASE_DIR" && timeout "$CMD_TIMEOUT" "$BIN" "$@" 2>&1 >/dev/null)
  rc=$?
  {
    echo "\$ mallat $*"
    [[ -n $err ]] && printf '%s\n' "$err"
    echo "exit $rc"
  } >>"$CASE_DIR/run.log"
  if [[ $rc -ne 0 ]]; then echo "exit $rc: mallat $1" >>"$CASE_DIR/failed"; fi
  return 0
}

# same_inside A B: A and B of this case must be identical within the build.
same_inside() {
  if cmp -s "$CASE_DIR/$1" "$CASE_DIR/$2"; then
    echo "# $1 = $2" >>"$CASE_DIR/run.log"
  else
    echo "# $1 != $2" >>"$CASE_DIR/run.log"
    echo "$1 != $2 inside the build" >>"$CASE_DIR/self-differ"
  fi
}

# dec_name EXT OPTIONS...: out file for a decode, e.g. dec-r2l1.ppm.
dec_name() {
  local ext=$1 tag
  shift
  tag=$(printf '%s' "$*" | tr -d ' -')
  printf 'dec%s.%s' "${tag:+-$tag}" "$ext"
}

run_side() {
  BIN=$1 SIDE_DIR=$2
  mkdir -p "$SIDE_DIR"
  local entry key file ext spec name enc_ext i n f
  local -a fields words opts
  for entry in "${IMAGES[@]}"; do
    read -r key file ext <<<"$entry"
    for spec in "${ENCODE_CASES[@]}"; do
      IFS='|' read -r -a fields <<<"$spec"
      name=$(trim "${fields[0]}")
      enc_ext=$(trim "${fields[1]}")
      read -r -a words <<<"${fields[2]:-}"
      begin_case "$key/$name"
      m encode -i "$TESTDATA/$file" -o "enc.$enc_ext" "${words[@]}"
      m decode -i "enc.$enc_ext" -o "dec.$ext"
      for ((i = 3; i < ${#fields[@]}; i++)); do
        read -r -a opts <<<"${fields[i]}"
        m decode -i "enc.$enc_ext" -o "$(dec_name "$ext" "${opts[@]}")" "${opts[@]}"
      done
    done
    for spec in "${THREAD_CASES[@]}"; do
      IFS='|' read -r -a fields <<<"$spec"
      name=$(trim "${fields[0]}")
      read -r -a words <<<"${fields[1]:-}"
      begin_case "$key/$name"
      for n in 1 2; do
        m encode -i "$TESTDATA/$file" -o "enc-threads$n.j2k" "${words[@]}" -threads "$n"
        m decode -i enc-threads1.j2k -o "dec-threads$n.$ext" -threads "$n"
      done
      same_inside enc-threads1.j2k enc-threads2.j2k
      if [[ $ext == pgx ]]; then
        for f in "$CASE_DIR"/dec-threads1_*.pgx; do
          f=$(basename "$f")
          same_inside "$f" "dec-threads2_${f#dec-threads1_}"
        done
      else
        same_inside "dec-threads1.$ext" "dec-threads2.$ext"
      fi
    done
  done
  for f in "$TESTDATA"/conformance/p[01]_*.j2k; do
    begin_case "conformance/$(basename "$f")"
    m decode -i "$f" -o out.pgx
  done
  for f in "$TESTDATA"/conformance/file*.jp2; do
    begin_case "conformance/$(basename "$f")"
    m decode -i "$f" -o out.pgx
    m decode -i "$f" -o out.ppm
  done
  for spec in "${CONFORMANCE_EXTRA[@]}"; do
    IFS='|' read -r -a fields <<<"$spec"
    begin_case "conformance/$(trim "${fields[0]}")"
    read -r -a opts <<<"${fields[3]}"
    m decode -i "$TESTDATA/conformance/$(trim "${fields[1]}")" -o "$(trim "${fields[2]}")" "${opts[@]}"
  done
  return 0
}

start=$SECONDS
echo "running both builds over the set (outputs in $out) ..."
run_side "$baseline_bin" "$out/baseline" &
pid_base=$!
run_side "$candidate_bin" "$out/candidate" &
pid_cand=$!
wait "$pid_base" || die "running the baseline failed"
wait "$pid_cand" || die "running the candidate failed"
cmp -s "$out/baseline/cases.txt" "$out/candidate/cases.txt" || die "internal error: case lists differ"

# --- comparing -----------------------------------------------------------------

passed=0 failed=0 both_fail=0
{
  while IFS= read -r c; do
    b=$out/baseline/$c d=$out/candidate/$c
    diffs=()
    while IFS= read -r f; do
      if [[ ! -f $b/$f ]]; then
        diffs+=("$f: only in candidate")
      elif [[ ! -f $d/$f ]]; then
        diffs+=("$f: only in baseline")
      elif ! cmp -s "$b/$f" "$d/$f"; then
        [[ $f == run.log ]] && diffs+=("exit status or stderr (diff run.log)") || diffs+=("$f")
      fi
    done < <({ (cd "$b" && find . -type f); (cd "$d" && find . -type f); } |
             sed 's|^\./||' | grep -v -x -e failed -e self-differ | sort -u)
    for side in baseline candidate; do
      if [[ -f $out/$side/$c/self-differ ]]; then
        diffs+=("$side: $(paste -sd ';' "$out/$side/$c/self-differ")")
      fi
    done
    if [[ ${#diffs[@]} -eq 0 ]]; then
      passed=$((passed + 1))
      if [[ -f $b/failed ]]; then
        both_fail=$((both_fail + 1))
        printf 'same       %s  (fails in both: %s)\n' "$c" "$(paste -sd ';' "$b/failed")"
      else
        printf 'same       %s\n' "$c"
      fi
    else
      failed=$((failed + 1))
      detail=$(printf '%s, ' "${diffs[@]:0:4}")
      detail=${detail%, }
      [[ ${#diffs[@]} -gt 4 ]] && detail+=", ... (${#diffs[@]} in all)"
      printf 'DIFFERENT  %s  (%s)\n' "$c" "$detail"
    fi
  done <"$out/baseline/cases.txt"
  echo "# $((SECONDS - start)) s; baseline $baseline_bin; candidate $candidate_bin; outputs $out"
  [[ $both_fail -gt 0 ]] && echo "# $both_fail of the same cases fail identically in both builds"
  echo "$passed passed, $failed failed"
} | tee "$out/report.txt"

# The loop ran in a pipeline's subshell: read the counts back.
summary=$(tail -n 1 "$out/report.txt")
failed=${summary#*passed, }
failed=${failed% failed}
if [[ $failed == 0 ]]; then
  [[ $keep_out == 0 ]] && rm -rf "$out"
  exit 0
fi
echo "outputs kept in $out (compare with cmp / diff baseline/CASE candidate/CASE)" >&2
exit 1
