# Timing helpers the benchmark scripts source (`. bench/timing.sh`); OUT must be set.

# timed COMMAND...: one whole process, its output dropped (stderr appended to $OUT/errors.log); sets WALL and CPU
# (user+sys) in seconds.
timed() {
  local t0 t1
  t0=$(date +%s.%N)
  ( TIMEFORMAT='%U %S'; time "$@" > /dev/null 2>> "$OUT/errors.log" ) 2> "$OUT/t.tmp"
  t1=$(date +%s.%N)
  WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')
  CPU=$(awk '{printf "%.2f", $1 + $2}' "$OUT/t.tmp")
}

# once FILE LABEL COMMAND...: timed; "LABEL wall user+sys" appended to FILE (LABEL without spaces).
once() {
  local file=$1 label=$2
  shift 2
  timed "$@"
  echo "$label $WALL $CPU" >> "$file"
}

# same DIR REF EXT: how many of REF's .EXT files DIR's differ from.
same() {
  local bad=0 f
  for f in "$2"/*."$3"; do cmp -s "$f" "$1/$(basename "$f")" || bad=$((bad + 1)); done
  echo "$bad"
}

# med: the median of the numbers on stdin (the mean of the middle two for an even count).
med() { sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

# t COMMAND...: one whole process's wall seconds on stdout (its own output dropped).
t() {
  local s e
  s=$(date +%s.%N)
  "$@" > /dev/null 2>&1
  e=$(date +%s.%N)
  awk -v a="$s" -v b="$e" 'BEGIN {print b - a}'
}

# medians_table TIMES N: per label of TIMES (once's lines, several runs each), the median wall and user+sys, the
# wall in ms per image of a batch of N files, and every run's wall.
medians_table() {
  local n=$2 label rest walls cpus mw mc
  awk '{w[$1] = w[$1] " " $2; c[$1] = c[$1] " " $3} END {for (k in w) print k, w[k], "|", c[k]}' "$1" | sort |
    while read -r label rest; do
      walls=${rest%|*}
      cpus=${rest#*|}
      mw=$(echo $walls | tr ' ' '\n' | med)
      mc=$(echo $cpus | tr ' ' '\n' | med)
      printf "%-16s median wall %6.2f s (%5.1f ms/image), user+sys %6.1f s   walls:%s\n" "$label" "$mw" \
        "$(awk -v w="$mw" -v n="$n" 'BEGIN {print w * 1000 / n}')" "$mc" "$walls"
    done
}

# per_image LABEL COMMAND...: timed; appends to $R its wall over the batch's $N files (ms per image) and its user+sys.
per_image() {
  local label=$1
  shift
  timed "$@"
  awk -v l="$label" -v w="$WALL" -v c="$CPU" -v n="$N" \
    'BEGIN {printf "%-40s wall %.2f s (%.1f ms/image), user+sys %.1f s\n", l, w, w * 1000 / n, c}' >> "$R"
}

# ensure_mallat BUILD: mallat built with CUDA (Release, sm_90) into BUILD unless BUILD/tools/mallat exists; the
# configure and build logs in $OUT; non-zero, with the errors printed, when either fails.
ensure_mallat() {
  local b=$1
  [ -x "$b/tools/mallat" ] && return 0
  cmake -S . -B "$b" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DMALLAT_CUDA=ON -DMALLAT_PYTHON=OFF \
    -DMALLAT_TIFF=OFF > "$OUT/cfg.log" 2>&1 || { tail -20 "$OUT/cfg.log"; return 1; }
  cmake --build "$b" -j16 --target mallat > "$OUT/build.log" 2>&1 || { grep -E "error" -A3 "$OUT/build.log" | head -40; return 1; }
}

# edges_line LABEL START END DIR: "LABEL WALL first F last L exit X" in ms, for a command that ran from START to END
# (date +%s%N) and renamed its outputs into DIR: its wall time, its first and last output's rename (ctime) from
# START, and END after the last rename (batch_edges.sh, before_after.sh).
edges_line() {
  local first last
  read -r first last < <(stat -c %.9Z "$4"/* | sort -n | awk 'NR==1{f=$1} {l=$1} END {print f, l}')
  awk -v l="$1" -v s="$2" -v e="$3" -v f="$first" -v z="$last" \
    'BEGIN {printf "%s %.0f first %.0f last %.0f exit %.0f\n", l, (e-s)/1e6, (f*1e9-s)/1e6, (z*1e9-s)/1e6, (e-z*1e9)/1e6}'
}

# edges_table FILE: edges_line's lines gathered per label, every run's figures in a row.
edges_table() {
  awk '{w[$1]=w[$1]" "$2; f[$1]=f[$1]" "$4; l[$1]=l[$1]" "$6; x[$1]=x[$1]" "$8}
       END {for (k in w) print k, "wall" w[k], "| first" f[k], "| last" l[k], "| exit" x[k]}' "$1" | sort
}
