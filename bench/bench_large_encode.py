#!/usr/bin/python3
"""Large-image encode benchmark: wall seconds, CPU seconds
(user + sys) and peak RSS of mallat's streamed encode (and its whole-image
path, --whole-image), grk_compress, opj_compress and ojph_compress, lossless.

Builds an RGB mosaic of the shared photos (15360x8192 by default, the
tiling of bench_codec.py's mosaic, written row by row so that a 50000x50000
one needs no memory), encodes it with each encoder at the given threads
(OpenJPH has one thread and codes HT: mallat -M 64 is shown beside it),
timed with /usr/bin/time -f "%e %U %S %M", medians of --runs runs. mallat's
streamed files are checked to equal its whole-image files byte for byte
and, decoded by opj_decompress, to equal the mosaic (--no-check skips the
whole-image run and the decode, for sizes that do not fit in memory).
Prints the load average before and after. The decode side is
bench_large_decode.py.

usage: bench_large_encode.py [--mallat build/tools/mallat] [--mosaic 15360x8192]
       [--threads 2] [--runs 3] [--workdir /tmp] [--only-mallat] [--no-check] [--tiles 1024,1024]
"""
import argparse
import filecmp
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_codec import mosaic_rows  # noqa: E402


def write_mosaic(sources, width, height, out):
    """bench_codec.py's mosaic, written as its rows come (none held)."""
    with open(out, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (width, height))
        for row in mosaic_rows(sources, width, height):
            f.write(row)


def same_raster(a, b, raster_bytes):
    """Whether two PPM files end in the same raster_bytes bytes (their
    headers may differ: opj_decompress writes a comment)."""
    with open(a, "rb") as fa, open(b, "rb") as fb:
        fa.seek(os.path.getsize(a) - raster_bytes)
        fb.seek(os.path.getsize(b) - raster_bytes)
        while True:
            x, y = fa.read(1 << 24), fb.read(1 << 24)
            if x != y:
                return False
            if not x:
                return True


def measure(cmd, runs):
    """Medians of wall s, user + sys s and peak RSS (MB) over `runs` runs."""
    walls, cpus, peaks = [], [], []
    for _ in range(runs):
        r = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M"] + cmd, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            raise SystemExit("failed: " + " ".join(cmd) + "\n" + r.stderr)
        wall, user, system, kib = r.stderr.strip().splitlines()[-1].split()
        walls.append(float(wall))
        cpus.append(float(user) + float(system))
        peaks.append(int(kib) / 1024.0)
    return statistics.median(walls), statistics.median(cpus), statistics.median(peaks)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mallat", default="build/tools/mallat")
    ap.add_argument("--mosaic", default="15360x8192")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--only-mallat", action="store_true", help="leave out the other encoders")
    ap.add_argument("--no-check", action="store_true",
                    help="no whole-image run and no decode check (images larger than memory)")
    ap.add_argument("--tiles", default=None, metavar="W,H",
                    help="tiles of W x H for every encoder (mallat, grk and opj -t, ojph -tile_size)")
    args = ap.parse_args()
    w, h = (int(v) for v in args.mosaic.split("x"))
    images = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "testdata", "images")
    sources = sorted(os.path.join(images, n) for n in os.listdir(images) if n.endswith(".ppm"))
    tmp = tempfile.mkdtemp(prefix="bench_large_encode_", dir=args.workdir)
    try:
        mosaic = os.path.join(tmp, "mosaic.ppm")
        write_mosaic(sources, w, h, mosaic)
        t = str(args.threads)
        print(f"{w}x{h} RGB mosaic ({os.path.getsize(mosaic) / 1e6:.0f} MB), lossless; {args.threads} threads; "
              f"median of {args.runs}" + (f"; tiles {args.tiles}" if args.tiles else ""))
        print("before: load average %.2f %.2f %.2f" % os.getloadavg())
        streamed = os.path.join(tmp, "streamed.j2k")
        cases = [("mallat (streamed)", [args.mallat, "encode", "-i", mosaic, "-o", streamed, "-threads", t])]
        if not args.no_check:
            cases.append(("mallat --whole-image", [args.mallat, "encode", "-i", mosaic, "-o",
                                                   os.path.join(tmp, "whole.j2k"), "-threads", t, "--whole-image"]))
        cases.append(("mallat -M 64 (streamed, HT)", [args.mallat, "encode", "-i", mosaic, "-o",
                                                      os.path.join(tmp, "ht.j2c"), "-threads", t, "-M", "64"]))
        if not args.only_mallat:
            if shutil.which("grk_compress"):
                cases.append(("grk_compress", ["grk_compress", "-i", mosaic, "-o", os.path.join(tmp, "grk.j2k"),
                                               "-H", t]))
            if shutil.which("opj_compress"):
                cases.append(("opj_compress", ["opj_compress", "-i", mosaic, "-o", os.path.join(tmp, "opj.j2k"),
                                               "-threads", t]))
            if shutil.which("ojph_compress"):
                cases.append(("ojph_compress (HT, 1 thread)", ["ojph_compress", "-i", mosaic, "-o",
                                                               os.path.join(tmp, "ojph.j2c"), "-reversible", "true"]))
        if args.tiles:
            for name, cmd in cases:
                cmd += ["-tile_size", "{" + args.tiles + "}"] if cmd[0] == "ojph_compress" else ["-t", args.tiles]
        rows = []
        for name, cmd in cases:
            wall, cpu, peak = measure(cmd, args.runs)
            rows.append((name, wall, cpu, peak, os.path.getsize(cmd[cmd.index("-o") + 1])))
        print(f"{'encoder':32s} {'wall s':>8s} {'CPU s':>8s} {'peak RSS MB':>12s} {'bytes':>12s}")
        for name, wall, cpu, peak, size in rows:
            print(f"{name:32s} {wall:8.2f} {cpu:8.2f} {peak:12.0f} {size:12d}")
        print("after: load average %.2f %.2f %.2f" % os.getloadavg())
        if not args.no_check:
            if not filecmp.cmp(streamed, os.path.join(tmp, "whole.j2k"), shallow=False):
                raise SystemExit("the streamed file differs from the whole-image one")
            decoded = os.path.join(tmp, "decoded.ppm")
            subprocess.run(["opj_decompress", "-i", streamed, "-o", decoded], check=True, stdout=subprocess.DEVNULL)
            if not same_raster(decoded, mosaic, w * h * 3):
                raise SystemExit("opj_decompress of the streamed file differs from the mosaic")
            print("checked: streamed file == whole-image file; opj_decompress of it == the mosaic")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
