#!/usr/bin/python3
"""Large-image decode benchmark: wall seconds, CPU seconds and
peak RSS of mallat's streamed decode (and its whole-image path,
--whole-image), grk_decompress, opj_decompress and ojph_expand.

Builds an RGB mosaic of the shared photos (15360x8192 by default, as
bench_codec.py --mosaic makes it), encodes it losslessly with mallat
(one tile, 5 levels, 64x64 code-blocks) and with ojph_compress -reversible
true (OpenJPH decodes only HT), and decodes each file to PPM with every
decoder at the given threads (OpenJPH has one thread), timed with
/usr/bin/time -f "%e %U %S %M"; medians of --runs runs. mallat's outputs are
checked to equal the mosaic byte for byte. Prints the load average before
and after. Needs about 4x the mosaic's size in --workdir.

usage: bench_large_decode.py [--mallat build/tools/mallat] [--mosaic 15360x8192]
       [--threads 2] [--runs 3] [--workdir /tmp] [--ht]
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
from bench_codec import make_mosaic  # noqa: E402
from bench_large_encode import measure  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mallat", default="build/tools/mallat")
    ap.add_argument("--mosaic", default="15360x8192")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--ht", action="store_true", help="mallat encodes HT code-blocks too")
    args = ap.parse_args()
    w, h = (int(v) for v in args.mosaic.split("x"))
    images = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "testdata", "images")
    sources = sorted(os.path.join(images, n) for n in os.listdir(images) if n.endswith(".ppm"))
    tmp = tempfile.mkdtemp(prefix="bench_large_decode_", dir=args.workdir)
    try:
        mosaic = os.path.join(tmp, "mosaic.ppm")
        make_mosaic(sources, w, h, mosaic)
        j2k = os.path.join(tmp, "mosaic.j2k")
        subprocess.run([args.mallat, "encode", "-i", mosaic, "-o", j2k, "-threads", str(args.threads)]
                       + (["--ht"] if args.ht else []), check=True)
        print(f"{w}x{h} RGB mosaic ({os.path.getsize(mosaic) / 1e6:.0f} MB), lossless "
              f"{os.path.getsize(j2k) / 1e6:.0f} MB; {args.threads} threads; median of {args.runs}")
        print("before: load average %.2f %.2f %.2f" % os.getloadavg())
        t = str(args.threads)
        out = os.path.join(tmp, "out.ppm")
        rows = []
        cases = [("mallat (streamed)", [args.mallat, "decode", "-i", j2k, "-o", out, "-threads", t, "--streamed"], True),
                 ("mallat --whole-image", [args.mallat, "decode", "-i", j2k, "-o", out, "-threads", t,
                                           "--whole-image"], True)]
        if shutil.which("grk_decompress"):
            cases.append(("grk_decompress", ["grk_decompress", "-i", j2k, "-o", out, "-H", t], False))
        if shutil.which("opj_decompress"):
            cases.append(("opj_decompress", ["opj_decompress", "-i", j2k, "-o", out, "-threads", t], False))
        if shutil.which("ojph_compress"):
            jph = os.path.join(tmp, "mosaic.jph")
            subprocess.run(["ojph_compress", "-i", mosaic, "-o", jph, "-reversible", "true"], check=True,
                           stdout=subprocess.DEVNULL)
            cases.append(("ojph_expand (its own HT file, 1 thread)", ["ojph_expand", "-i", jph, "-o", out], False))
        for name, cmd, check in cases:
            wall, cpu, rss = measure(cmd, args.runs)
            if check and not filecmp.cmp(out, mosaic, shallow=False):
                raise SystemExit(f"{name}: the decode differs from the mosaic")
            rows.append((name, wall, cpu, rss))
            os.remove(out)
        print(f"{'decoder':42s} {'wall s':>8s} {'CPU s':>8s} {'peak RSS MB':>12s}")
        for name, wall, cpu, rss in rows:
            print(f"{name:42s} {wall:8.2f} {cpu:8.2f} {rss:12.0f}")
        print("after: load average %.2f %.2f %.2f" % os.getloadavg())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
