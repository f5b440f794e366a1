#!/usr/bin/env python3
"""Summarises a batch timeline (MALLAT_TIMELINE=FILE mallat encode|decode -i DIR ...; common/timeline.h).

Prints, for one timeline CSV (file,lane,what,start_ms,end_ms,detail):
- per stage: spans, summed time, mean, and how long at least one file was in it (its busy union);
- the device's rounds: how many, files and blocks per round, upload/kernel/download per round, how long some
  kernel ran (union) and the device's idle gaps between launches;
- per lane: the time coding files, helping the files of other lanes at a batch's end (the item threads that last
  held the lane: common/help_board.h) and the gaps between files; the wait to join a round (t1_join);
- reading and writing: their busy unions (one writer writes the files in order).
Usage: timeline_summary.py TIMELINE.csv [more.csv ...]
"""
import csv
import statistics
import sys
from collections import defaultdict


def union(intervals):
    """Total length of the union of [start, end) intervals, and the merged list."""
    merged = []
    for s, e in sorted(intervals):
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    return sum(e - s for s, e in merged), merged


def gaps(merged):
    return [b[0] - a[1] for a, b in zip(merged, merged[1:])]


def detail_of(text):
    out = {}
    for part in text.split():
        if "=" in part:
            k, v = part.split("=", 1)
            out[k] = v
    return out


def summarise(path):
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            rows.append((int(r["file"]), int(r["lane"]), r["what"], float(r["start_ms"]), float(r["end_ms"]),
                         r["detail"]))
    if not rows:
        print(f"{path}: empty")
        return
    t0 = min(r[3] for r in rows)
    t1 = max(r[4] for r in rows)
    files = {r[0] for r in rows if r[0] >= 0}
    wall = t1 - t0
    print(f"== {path}: {len(files)} files, {wall:.1f} ms from the first span to the last "
          f"({wall / max(1, len(files)):.1f} ms/file)")
    by_what = defaultdict(list)
    for r in rows:
        by_what[r[2]].append((r[3], r[4]))
    print(f"{'stage':<14}{'spans':>7}{'sum ms':>10}{'mean ms':>9}{'busy ms':>10}{'busy %':>8}")
    order = ["read", "lane_wait", "code", "headers", "tier2", "tier1_dequant", "idwt", "output", "colour", "dwt",
             "quant_tier1", "ht_candidates", "pcrd", "t1_join", "upload", "kernel", "download", "write"]
    for what in order + sorted(set(by_what) - set(order)):
        if what not in by_what:
            continue
        spans = by_what[what]
        total = sum(e - s for s, e in spans)
        busy, _ = union(spans)
        print(f"{what:<14}{len(spans):>7}{total:>10.1f}{total / len(spans):>9.2f}{busy:>10.1f}"
              f"{100 * busy / wall:>7.0f}%")
    # The device's rounds: one kernel span per round.
    rounds = {}
    for r in rows:
        if r[2] in ("upload", "kernel", "download"):
            d = detail_of(r[5])
            key = int(d.get("round", -1))
            rd = rounds.setdefault(key, {"callers": int(d.get("callers", 0)), "blocks": int(d.get("blocks", 0)),
                                         "slot": d.get("slot", "?")})
            rd[r[2]] = r[4] - r[3]
            rd.setdefault("start", r[3])
            rd["start"] = min(rd["start"], r[3])
            rd["end"] = max(rd.get("end", r[4]), r[4])
    if rounds:
        callers = defaultdict(int)
        for rd in rounds.values():
            callers[rd["callers"]] += 1
        hist = ", ".join(f"{c} file(s): {n}" for c, n in sorted(callers.items()))
        print(f"device rounds: {len(rounds)} ({hist}); blocks per round median "
              f"{statistics.median(rd['blocks'] for rd in rounds.values()):.0f}")
        for step in ("upload", "kernel", "download"):
            v = [rd.get(step, 0) for rd in rounds.values()]
            print(f"  {step:<9} per round: median {statistics.median(v):.1f} ms, min {min(v):.1f}, max {max(v):.1f}")
        per_callers = defaultdict(list)
        for rd in rounds.values():
            per_callers[rd["callers"]].append(rd.get("kernel", 0))
        print("  kernel by files in the round: " + ", ".join(
            f"{c}: {statistics.median(v):.1f} ms" for c, v in sorted(per_callers.items())))
        busy, merged = union([(rd["start"], rd["end"]) for rd in rounds.values()])
        kbusy, _ = union(by_what["kernel"])
        g = gaps(merged)
        print(f"  device busy (upload..download of some round) {busy:.1f} ms = {100 * busy / wall:.0f}% of the wall; "
              f"a kernel running {kbusy:.1f} ms = {100 * kbusy / wall:.0f}%")
        if g:
            print(f"  device idle gaps: {len(g)}, sum {sum(g):.1f} ms, median {statistics.median(g):.1f}, "
                  f"max {max(g):.1f}; before the first launch {merged[0][0] - t0:.1f} ms, after the last "
                  f"{t1 - merged[-1][1]:.1f} ms")
    # Lanes.
    lanes = defaultdict(list)
    helping = defaultdict(list)  # help spans of the item threads that last held the lane
    for r in rows:
        if r[2] == "code" and r[1] >= 0:
            lanes[r[1]].append((r[3], r[4]))
        if r[2] == "help" and r[1] >= 0:
            helping[r[1]].append((r[3], r[4]))
    for lane, spans in sorted(lanes.items()):
        busy, merged = union(spans)
        g = gaps(merged)
        gap_text = f", gaps between files sum {sum(g):.1f} ms (max {max(g):.1f})" if g else ""
        help_text = ""
        if helping[lane]:
            helped, _ = union(helping[lane])
            either, _ = union(spans + helping[lane])
            help_text = (f", helping other files {helped:.1f} ms, coding or helping {either:.1f} ms = "
                         f"{100 * either / wall:.0f}%")
        print(f"lane {lane}: {len(spans)} files, coding {busy:.1f} ms = {100 * busy / wall:.0f}%{help_text}{gap_text}")
    if by_what.get("t1_join"):
        j = [e - s for s, e in by_what["t1_join"]]
        print(f"t1_join (waiting for a round and its prepare): median {statistics.median(j):.1f} ms, "
              f"max {max(j):.1f}, sum {sum(j):.1f}")
    # Per file: what its code span held.
    per_file = defaultdict(lambda: defaultdict(float))
    for r in rows:
        if r[0] >= 0:
            per_file[r[0]][r[2]] += r[4] - r[3]
    stages = [w for w in order if any(w in v for v in per_file.values())]
    print("per file, median ms: " + ", ".join(
        f"{w} {statistics.median(v.get(w, 0) for v in per_file.values()):.1f}" for w in stages))


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    for path in sys.argv[1:]:
        summarise(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
