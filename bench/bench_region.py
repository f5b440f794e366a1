#!/usr/bin/env python3
"""Region decode (-d x0,y0,x1,y1) against the whole decode.

Builds the RGB mosaic of the shared photos (15360x8192 unless --mosaic
says otherwise; bench_codec.py's mosaic), encodes it losslessly with mallat
twice: tiled (-t 1024,1024) and untiled with precincts and PLT (-c [256,256]
-PLT), and times whole processes decoding each: the whole image, then
regions of it with mallat decode -d, opj_decompress -d and grk_decompress -d
(the same files). Every mallat region is checked against the crop of
mallat's whole decode (equal sample for sample), and against
opj_decompress -d's output. Prints wall and CPU (user + system) seconds
(medians of --runs), the peak RSS, and how many times faster than mallat's
whole decode each region decode is, in wall time and in CPU time (the
steadier figure on a loaded machine). mallat decode reads its whole input
file into memory, so its peak RSS holds the compressed file whatever the
region (OpenJPEG reads the parts it needs).

usage: bench/bench_region.py [--mallat build/tools/mallat]
       [--testdata ../shared/testdata] [--mosaic 15360x8192] [--runs 3]
       [--threads 2] [--lossy RATIO]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_codec import load_average, make_mosaic, read_ppm  # noqa: E402


def run(cmd, tmp):
    """Wall seconds, CPU seconds (user + system) and peak RSS (MB) of one process, as /usr/bin/time -f
    "%e %U %S %M" gives them (the process itself, not this script's fork of it); exits on failure."""
    report = os.path.join(tmp, "time.txt")
    r = subprocess.run(["/usr/bin/time", "-o", report, "-f", "%e %U %S %M"] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    if r.returncode != 0:
        raise SystemExit("failed: " + " ".join(cmd) + "\n" + r.stderr.decode(errors="replace"))
    with open(report) as f:
        wall, user, system, kb = f.read().split()[-4:]
    return float(wall), float(user) + float(system), int(kb) / 1024.0


def timed(cmd, runs, tmp):
    """Medians of wall and CPU seconds over `runs` runs, and the largest peak RSS."""
    results = [run(cmd, tmp) for _ in range(runs)]
    return (statistics.median(r[0] for r in results), statistics.median(r[1] for r in results),
            max(r[2] for r in results))


def crop(ppm, width, box):
    """The samples of box (x0, y0, x1, y1) of an 8-bit RGB PPM's pixel bytes."""
    x0, y0, x1, y1 = box
    return b"".join(ppm[(y * width + x0) * 3:(y * width + x1) * 3] for y in range(y0, y1))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mallat", default="build/tools/mallat")
    ap.add_argument("--testdata", default="../shared/testdata")
    ap.add_argument("--mosaic", default="15360x8192", help="the mosaic's WxH")
    ap.add_argument("--runs", type=int, default=3, help="runs per region decode (the whole decode runs once)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--lossy", type=float, default=0, help="irreversible (9/7), at this compression ratio")
    args = ap.parse_args()
    width, height = (int(v) for v in args.mosaic.split("x"))
    images = os.path.join(args.testdata, "images")
    sources = sorted(os.path.join(images, n) for n in os.listdir(images) if n.endswith(".ppm"))
    # 1024x1024 regions: on the tile grid, straddling four tiles, a corner.
    regions = [(4096, 2048, 5120, 3072), (4600, 2500, 5624, 3524), (width - 1024, height - 1024, width, height)]
    regions = [r for r in regions if r[2] <= width and r[3] <= height and r[0] >= 0 and r[1] >= 0]
    t = str(args.threads)
    lossy = ["-I", "-r", f"{args.lossy:g}"] if args.lossy else []
    tmp = tempfile.mkdtemp(prefix="mallat-region-")
    try:
        mosaic = os.path.join(tmp, "mosaic.ppm")
        make_mosaic(sources, width, height, mosaic)
        print(f"region decode: {width}x{height} RGB mosaic of {len(sources)} photos, "
              f"{'lossy ' + ' '.join(lossy) if lossy else 'lossless'}, {t} threads, "
              f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
        print(f"machine: {os.cpu_count()} CPUs, {load_average()} at the start")
        layouts = [("tiled -t 1024,1024", ["-t", "1024,1024"]),
                   ("untiled -c [256,256] -PLT", ["-c", "[256,256]", "-PLT"])]
        have = {c: shutil.which(c) is not None for c in ("opj_decompress", "grk_decompress")}
        print(f"{'stream':28} {'decoder':8} {'region':24} {'wall s':>8} {'cpu s':>7} {'peak MB':>8} {'x wall':>7}"
              f" {'x cpu':>7} {'check':>10}")
        for name, layout in layouts:
            stream = os.path.join(tmp, "m.j2k")
            subprocess.run([args.mallat, "encode", "-i", mosaic, "-o", stream, "-threads", t] + layout + lossy,
                           check=True)
            whole_out = os.path.join(tmp, "whole.ppm")
            whole_s, whole_cpu, whole_mb = timed([args.mallat, "decode", "-i", stream, "-o", whole_out, "-threads", t], 1, tmp)
            print(f"{name:28} {'mallat':8} {'whole image':24} {whole_s:8.2f} {whole_cpu:7.2f} {whole_mb:8.0f}"
                  f" {1.0:7.1f} {1.0:7.1f}")
            ww, wh, whole = read_ppm(whole_out)
            assert (ww, wh) == (width, height)
            for box in regions:
                d = ",".join(str(v) for v in box)
                out = os.path.join(tmp, "region.ppm")
                s, cpu, mb = timed([args.mallat, "decode", "-i", stream, "-o", out, "-d", d, "-threads", t], args.runs, tmp)
                rw, rh, got = read_ppm(out)
                same = (rw, rh) == (box[2] - box[0], box[3] - box[1]) and got == crop(whole, width, box)
                check = "= crop" if same else "DIFFERS"
                opj_out = os.path.join(tmp, "opj.ppm")
                rows = []
                if have["opj_decompress"]:
                    os_, ocpu, omb = timed(["opj_decompress", "-i", stream, "-o", opj_out, "-d", d,
                                      "-threads", t, "-quiet"], args.runs, tmp)
                    check += ", = opj" if read_ppm(opj_out)[2] == got else ", != opj"
                    rows.append(("opj", os_, ocpu, omb))
                if have["grk_decompress"]:
                    gs, gcpu, gmb = timed(["grk_decompress", "-i", stream, "-o", os.path.join(tmp, "grk.ppm"), "-d", d,
                                     "-H", t], args.runs, tmp)
                    rows.append(("grok", gs, gcpu, gmb))
                rows.insert(0, ("mallat", s, cpu, mb))
                for dec, ds, dcpu, dmb in rows:
                    print(f"{name:28} {dec:8} {d:24} {ds:8.3f} {dcpu:7.2f} {dmb:8.0f} {whole_s / ds:7.1f}"
                          f" {whole_cpu / max(dcpu, 0.01):7.1f} {check if dec == 'mallat' else ''}")
                if not same:
                    raise SystemExit(f"mallat's region {d} differs from the crop of its whole decode")
            os.remove(stream)
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
