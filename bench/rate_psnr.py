#!/usr/bin/python3
"""Rate/PSNR comparison: mallat against opj_compress -I and grk_compress -I.

For every image of a folder (default: the shared PPM, BMP and TIFF photos;
not the PNGs, whose gAMA chunk Debian's OpenJPEG applies), encodes at each
target in bits per pixel (mallat --bpp B -I; opj/grk -I -r RATIO with RATIO =
components x precision / B, the same file size) and losslessly (each codec's
default), decodes each file with its codec's own decoder (mallat's files
with opj_decompress while mallat cannot decode them; the CSV says which),
and measures the real bits per pixel from the file size and the PSNR (all
components together, and each component) against the original with
`mallat compare`. Writes a CSV, prints mean PSNR per target and codec, the
Bjontegaard deltas (BD-rate, BD-PSNR) of mallat against each peer, and
draws the rate/PSNR curves to a PNG.

With --ht, mallat's HTJ2K path (-M 64, the same targets) is one more codec,
"mallat-ht", so the deltas show what HT code-blocks cost against Part 1's;
--ht-full adds "mallat-ht-full", HT with --ht-rate full (every plane coded
under the target, the slower mode), so both modes are compared; a table
gives each codec's mean time per encode at each target;
the PSNR of each HT codec minus mallat's Part 1 at each target is printed
too (every codec lands at or below the target's size). With --ojph,
OpenJPH's HT encoder is another, "ojph-ht": it has no rate control, so for
each target its -qstep is searched (bisection on the step's logarithm) for
the largest file at or below the target's size; its input is the image
converted to PNM by `mallat convert`, its decoder ojph_expand. It shows
where a reference HT encoder stands at the same sizes.

usage: /usr/bin/python3 bench/rate_psnr.py [--images DIR] [--mallat build/tools/mallat]
       [--bpp 0.125,0.25,0.5,1,2] [--out rate_psnr] [--threads 1] [--ht [--ht-args '--step-search 2']] [--ht-full] [--ojph]
"""
import argparse
import csv
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

# Tiny images give degenerate curves; their fits still count, quietly.
warnings.simplefilter("ignore", np.RankWarning)


def run(cmd):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return r.returncode, time.perf_counter() - t0, r.stdout.decode(errors="replace") + r.stderr.decode(errors="replace")


def image_info(mallat, path):
    rc, _, out = run([mallat, "info", path])
    if rc != 0:
        raise RuntimeError(out)
    m = re.search(r"(\d+)x(\d+)", out)
    comps = re.findall(r"(\d+) bits?", out)
    nc = re.search(r"(\d+) components?", out)
    if not m or not comps:
        raise RuntimeError("cannot read `mallat info` output: " + out)
    count = int(nc.group(1)) if nc else len(comps)
    return int(m.group(1)), int(m.group(2)), count, int(comps[0])


def compare(mallat, a, b):
    """Per-component and overall (MSE, PSNR) from `mallat compare`."""
    rc, _, out = run([mallat, "compare", a, b])
    if rc not in (0, 1):
        raise RuntimeError(out)
    comps, overall = [], None
    for line in out.splitlines():
        m = re.search(r"MSE\s+([0-9.e+-]+|inf)\s+PSNR\s+([0-9.e+-]+|inf)", line)
        if not m:
            continue
        pair = (float(m.group(1)), float(m.group(2)))
        if line.strip().startswith("overall"):
            overall = pair
        else:
            comps.append(pair)
    if overall is None:
        if len(comps) == 1:
            overall = comps[0]
        else:
            raise RuntimeError("cannot read `mallat compare` output: " + out)
    return overall, comps


def ojph_encode(src_pnm, j2c, target_bytes):
    """OpenJPH's lossy HT file of the largest size at or below target_bytes
    (None: its reversible, lossless file). OpenJPH has no rate control, so
    -qstep is searched by bisection on its logarithm (a larger step never
    gives a larger file here; the search keeps the best file it met).
    Returns (rc, seconds of the kept encode, log)."""
    if target_bytes is None:
        return run(["ojph_compress", "-i", src_pnm, "-o", j2c, "-reversible", "true"])
    def encode(q):
        rc, te, log = run(["ojph_compress", "-i", src_pnm, "-o", j2c, "-qstep", f"{q:.8g}"])
        return rc, te, log, (os.path.getsize(j2c) if rc == 0 and os.path.exists(j2c) else None)
    lo, hi = math.log(1e-5), math.log(0.5)  # OpenJPH's range of -qstep
    best = None  # (size, q)
    for _ in range(18):
        mid = (lo + hi) / 2
        rc, _, log, size = encode(math.exp(mid))
        if size is None:
            return rc or 1, 0.0, log
        if size <= target_bytes:
            if best is None or size > best[0]:
                best = (size, math.exp(mid))
            hi = mid
        else:
            lo = mid
    if best is None:
        return 1, 0.0, f"no -qstep up to 0.5 gives a file of at most {target_bytes} bytes"
    rc, te, log, _ = encode(best[1])
    return rc, te, log


def bd_metrics(rate_a, psnr_a, rate_b, psnr_b):
    """Bjontegaard deltas of curve B against curve A (cubic fits of PSNR
    against log rate and back, over the overlapping interval): BD-rate in %
    (negative: B needs fewer bits) and BD-PSNR in dB (positive: B is better)."""
    la, lb = np.log(rate_a), np.log(rate_b)
    pa, pb = np.polyfit(la, psnr_a, 3), np.polyfit(lb, psnr_b, 3)
    lo, hi = max(la.min(), lb.min()), min(la.max(), lb.max())
    ia, ib = np.polyint(pa), np.polyint(pb)
    bd_psnr = ((np.polyval(ib, hi) - np.polyval(ib, lo)) - (np.polyval(ia, hi) - np.polyval(ia, lo))) / (hi - lo)
    qa, qb = np.polyfit(psnr_a, la, 3), np.polyfit(psnr_b, lb, 3)
    lo, hi = max(min(psnr_a), min(psnr_b)), min(max(psnr_a), max(psnr_b))
    ja, jb = np.polyint(qa), np.polyint(qb)
    avg = ((np.polyval(jb, hi) - np.polyval(jb, lo)) - (np.polyval(ja, hi) - np.polyval(ja, lo))) / (hi - lo)
    return (math.exp(avg) - 1) * 100.0, bd_psnr


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--images", default="../shared/testdata/images")
    ap.add_argument("--mallat", default="build/tools/mallat")
    ap.add_argument("--bpp", default="0.125,0.25,0.5,1,2")
    ap.add_argument("--out", default="rate_psnr", help="writes OUT.csv and OUT.png")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--no-lossless", action="store_true")
    ap.add_argument("--ht", action="store_true", help="also mallat -M 64 (HTJ2K) as codec mallat-ht")
    ap.add_argument("--ht-args", default="", help="more mallat encode options for mallat-ht only, e.g. "
                    "'--step-search 2'")
    ap.add_argument("--ht-full", action="store_true",
                    help="also mallat-ht with --ht-rate full (every plane coded) as codec mallat-ht-full")
    ap.add_argument("--ojph", action="store_true",
                    help="also OpenJPH's HT encoder (ojph_compress, -qstep searched per target) as codec ojph-ht")
    ap.add_argument("--min-pixels", type=int, default=0,
                    help="leave out smaller images (the shared 73x43 TIFFs cannot reach low targets: "
                         "their headers alone exceed them)")
    args = ap.parse_args()

    targets = [float(b) for b in args.bpp.split(",")]
    names = sorted(n for n in os.listdir(args.images) if n.lower().endswith((".ppm", ".bmp", ".tif", ".tiff")))
    if not names:
        raise SystemExit(f"no PPM/BMP/TIFF images in {args.images}")
    codecs = ["mallat", "opj"] + (["grok"] if shutil.which("grk_compress") else []) + (["mallat-ht"] if args.ht else [])
    if args.ht_full:
        codecs.append("mallat-ht-full")
    ours = ("mallat", "mallat-ht", "mallat-ht-full")
    if args.ojph:
        if not (shutil.which("ojph_compress") and shutil.which("ojph_expand")):
            raise SystemExit("--ojph needs ojph_compress and ojph_expand (Debian: apt-get install openjph-tools)")
        codecs.append("ojph-ht")
    tmp = tempfile.mkdtemp(prefix="mallat-rate-psnr-")
    rows = []
    jobs = [(n, t) for n in names for t in targets + ([] if args.no_lossless else [None])]
    done = 0
    try:
        for name in names:
            src = os.path.join(args.images, name)
            try:
                w, h, nc, prec = image_info(args.mallat, src)
            except RuntimeError as e:
                print(f"skip {name}: {e}", file=sys.stderr)
                continue
            if w * h < args.min_pixels:
                continue
            ext = os.path.splitext(name)[1].lower()
            dec_ext = ".tif" if ext in (".tif", ".tiff") else (".bmp" if ext == ".bmp" else (".ppm" if nc >= 3 else ".pgm"))
            pnm = os.path.join(tmp, "input" + (".ppm" if nc >= 3 else ".pgm"))
            if args.ojph:
                rc, _, log = run([args.mallat, "convert", src, pnm])
                if rc != 0:
                    raise SystemExit(f"mallat convert {src} {pnm} failed: {log.strip()[:200]}")
            for target in targets + ([] if args.no_lossless else [None]):
                done += 1
                label = "lossless" if target is None else f"{target:g}"
                for codec in codecs:
                    j2k = os.path.join(tmp, f"{codec}.j2k" if codec != "ojph-ht" else f"{codec}.j2c")
                    out = os.path.join(tmp, f"{codec}{dec_ext if codec != 'ojph-ht' else os.path.splitext(pnm)[1]}")
                    for f in (j2k, out):
                        if os.path.exists(f):
                            os.remove(f)
                    t = str(args.threads)
                    if codec in ours:
                        enc = [args.mallat, "encode", "-i", src, "-o", j2k, "-threads", t]
                        if target is not None:
                            enc += ["-I", "--bpp", f"{target:g}"]
                        if codec != "mallat":
                            enc += ["-M", "64"] + args.ht_args.split()
                        if codec == "mallat-ht-full":
                            enc += ["--ht-rate", "full"]
                    if codec == "ojph-ht":
                        rc, te, log = ojph_encode(pnm, j2k, None if target is None else int(target * w * h / 8))
                    elif codec not in ours:
                        tool = "opj_compress" if codec == "opj" else "grk_compress"
                        enc = [tool, "-i", src, "-o", j2k] + (["-threads", t] if codec == "opj" else ["-H", t])
                        if target is not None:
                            enc += ["-I", "-r", f"{nc * prec / target:.6f}"]
                    if codec != "ojph-ht":
                        rc, te, log = run(enc)
                    if rc != 0 or not os.path.exists(j2k):
                        print(f"\n{name} {label} {codec}: encode failed: {log.strip()[:200]}", file=sys.stderr)
                        continue
                    decoder = {"mallat": "mallat", "mallat-ht": "mallat", "mallat-ht-full": "mallat",
                               "opj": "opj_decompress", "grok": "grk_decompress", "ojph-ht": "ojph_expand"}[codec]
                    if decoder == "mallat":
                        rc, td, log = run([args.mallat, "decode", "-i", j2k, "-o", out, "-threads", t])
                        if rc != 0:
                            decoder = "opj_decompress"
                    if decoder == "opj_decompress":
                        rc, td, log = run(["opj_decompress", "-i", j2k, "-o", out, "-threads", t])
                    elif decoder == "grk_decompress":
                        rc, td, log = run(["grk_decompress", "-i", j2k, "-o", out, "-H", t])
                    elif decoder == "ojph_expand":
                        rc, td, log = run(["ojph_expand", "-i", j2k, "-o", out])
                    if rc != 0 or not os.path.exists(out):
                        print(f"\n{name} {label} {codec}: decode failed: {log.strip()[:200]}", file=sys.stderr)
                        continue
                    try:
                        (mse, psnr), comps = compare(args.mallat, src, out)
                    except RuntimeError as e:
                        print(f"\n{name} {label} {codec}: compare failed: {e}", file=sys.stderr)
                        continue
                    size = os.path.getsize(j2k)
                    rows.append({
                        "image": name, "codec": codec, "target_bpp": label, "bytes": size,
                        "bpp": 8.0 * size / (w * h), "psnr": psnr, "mse": mse,
                        "psnr_components": ";".join(f"{p:.3f}" for _, p in comps),
                        "encode_s": f"{te:.3f}", "decode_s": f"{td:.3f}", "decoder": decoder,
                    })
                print(f"\r[{done}/{len(jobs)}] {name} {label:>8}", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    with open(args.out + ".csv", "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        wr.writeheader()
        wr.writerows(rows)

    # Only images that every codec coded at every target enter the means.
    labels = [f"{t:g}" for t in targets] + ([] if args.no_lossless else ["lossless"])
    by = {(r["image"], r["codec"], r["target_bpp"]): r for r in rows}
    coded = sorted(set(r["image"] for r in rows))
    complete = [n for n in coded if all((n, c, l) in by for c in codecs for l in labels)]
    print(f"{len(complete)} of {len(coded)} images coded by every codec at every target")
    print(f"{'target bpp':>10} " + " ".join(f"{c + ' bpp':>11} {c + ' PSNR':>12}" for c in codecs))
    means = {c: [] for c in codecs}
    for l in labels:
        cells = []
        for c in codecs:
            bpp = np.mean([by[(n, c, l)]["bpp"] for n in complete])
            ps = [by[(n, c, l)]["psnr"] for n in complete]
            psnr = np.mean(ps) if all(math.isfinite(p) for p in ps) else float("inf")
            means[c].append((bpp, psnr))
            cells.append(f"{bpp:11.4f} {psnr:12.3f}")
        print(f"{l:>10} " + " ".join(cells))
    # Time per encode (the command's wall time, reading and writing
    # included), mean over the images, per target.
    print(f"{'target bpp':>10} " + " ".join(f"{c + ' enc ms':>16}" for c in codecs))
    for l in labels:
        cells = [f"{1000 * np.mean([float(by[(n, c, l)]['encode_s']) for n in complete]):16.1f}" for c in codecs]
        print(f"{l:>10} " + " ".join(cells))
    lossy = len(targets)
    for peer in codecs[1:]:
        rates, psnrs = [], []
        for n in complete:
            ra = np.array([by[(n, peer, l)]["bpp"] for l in labels[:lossy]])
            pa = np.array([by[(n, peer, l)]["psnr"] for l in labels[:lossy]])
            rb = np.array([by[(n, "mallat", l)]["bpp"] for l in labels[:lossy]])
            pb = np.array([by[(n, "mallat", l)]["psnr"] for l in labels[:lossy]])
            if len(ra) >= 4 and np.all(np.isfinite(pa)) and np.all(np.isfinite(pb)):
                r, p = bd_metrics(ra, pa, rb, pb)
                rates.append(r)
                psnrs.append(p)
        if rates:
            print(f"mallat vs {peer}: BD-rate {np.mean(rates):+.2f}%  BD-PSNR {np.mean(psnrs):+.3f} dB"
                  f"  (mean over {len(rates)} images; negative rate / positive PSNR: mallat better)")
    # 15444-15 against Part 1 at the same size: every codec lands at or below
    # each target's size, so each HT codec's PSNR minus mallat's Part 1's at
    # the same target is the measure, read directly.
    ht = [c for c in codecs if c in ("mallat-ht", "mallat-ht-full", "ojph-ht")]
    if ht and complete and lossy:
        print(f"{'target bpp':>10} " + " ".join(f"{c + ' - Part 1':>18}" for c in ht)
              + "   (PSNR minus mallat's Part 1 at the same target, dB: mean, then lowest image)")
        for l in labels[:lossy]:
            cells = []
            for c in ht:
                d = [by[(n, c, l)]["psnr"] - by[(n, "mallat", l)]["psnr"] for n in complete]
                cells.append(f"{np.mean(d):+8.3f} {min(d):+8.3f} ")
            print(f"{l:>10} " + " ".join(cells))
    # PSNR against OpenJPEG's at the same rate: OpenJPEG's curve of each
    # image (PSNR over log bpp, piecewise linear, extended linearly up to 5%
    # past its ends) read at the other codec's real rate, then the mean over
    # the images whose curve reaches that rate (count in brackets).
    deltas = {}
    if "opj" in codecs and complete:
        def opj_at(n, bpp):
            xs = np.log([by[(n, "opj", l)]["bpp"] for l in labels[:lossy]])
            ys = np.array([by[(n, "opj", l)]["psnr"] for l in labels[:lossy]])
            # Equal sizes (a tiny image whose headers exceed the low targets)
            # are one point: keep its best PSNR.
            points = {}
            for xv, yv in zip(xs, ys):
                points[xv] = max(points.get(xv, -math.inf), yv)
            if len(points) < 2:
                return math.nan
            xs = np.array(sorted(points))
            ys = np.array([points[xv] for xv in xs])
            x = math.log(bpp)
            # Read the curve where it was measured, or up to 5% beyond its ends.
            if x < xs[0] - 0.05 or x > xs[-1] + 0.05:
                return math.nan
            k = int(np.clip(np.searchsorted(xs, x), 1, len(xs) - 1))
            return ys[k - 1] + (ys[k] - ys[k - 1]) * (x - xs[k - 1]) / (xs[k] - xs[k - 1])
        print(f"{'target bpp':>10} " + " ".join(f"{c + ' dPSNR':>13}" for c in codecs if c != "opj")
              + "   (PSNR minus OpenJPEG's at the same bpp, dB)")
        counts = {}
        for c in codecs:
            if c != "opj" and lossy >= 2:
                d = [[by[(n, c, l)]["psnr"] - opj_at(n, by[(n, c, l)]["bpp"]) for n in complete]
                     for l in labels[:lossy]]
                deltas[c] = [np.nanmean(v) if any(math.isfinite(x) for x in v) else math.nan for v in d]
                counts[c] = [sum(math.isfinite(x) for x in v) for v in d]
        for i, l in enumerate(labels[:lossy]):
            print(f"{l:>10} " + " ".join(f"{deltas[c][i]:+8.3f} ({counts[c][i]:2d})" for c in deltas))
    for c in codecs:
        e = [float(r["encode_s"]) for r in rows if r["codec"] == c]
        d = [float(r["decode_s"]) for r in rows if r["codec"] == c]
        print(f"{c}: encode {sum(e):.2f} s, decode {sum(d):.2f} s over {len(e)} files")
    print(f"wrote {args.out}.csv")

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no plot", file=sys.stderr)
        return 0
    fig, (ax, dax) = plt.subplots(1, 2, figsize=(12, 5))
    for c in codecs:
        pts = means[c][:lossy]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=c)
    ax.set_xscale("log")
    ax.set_xlabel("bits per pixel (file size)")
    ax.set_ylabel("mean PSNR, dB")
    ax.set_title(f"rate/PSNR over {len(complete)} images")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    colours = {c: f"C{i}" for i, c in enumerate(codecs)}
    dax.axhline(0, color=colours.get("opj", "k"), label="opj")
    for c, d in deltas.items():
        dax.plot([p[0] for p in means[c][:lossy]], d, marker="o", label=c, color=colours[c])
    dax.set_xscale("log")
    dax.set_xlabel("bits per pixel (file size)")
    dax.set_ylabel("PSNR minus OpenJPEG's at the same rate, dB")
    dax.set_title("difference from OpenJPEG (mean over images)")
    dax.grid(True, which="both", alpha=0.3)
    dax.legend()
    fig.savefig(args.out + ".png", dpi=120, bbox_inches="tight")
    print(f"wrote {args.out}.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
