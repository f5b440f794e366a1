#!/usr/bin/env python3
"""Codec speed and size: mallat against OpenJPEG and Grok, lossless, or
lossy with --lossy RATIO (-I -r RATIO for all three: 9/7, quantisation and
rate allocation to RATIO).

Builds an RGB mosaic of about 8 megapixels (3840x2048) by tiling the shared
PPM images, then times whole processes (encode and decode, median of N runs,
wall and user CPU seconds) for mallat, opj_compress/opj_decompress and
grk_compress/grk_decompress at 1 and 2 threads, and the load average. It
also sums the lossless file sizes of every shared image for mallat and
opj_compress with the same settings.

With --ht the block coder is HTJ2K's (15444-15): mallat -M 64 against
OpenJPH (ojph_compress -reversible true, or -qstep Q with --lossy; OpenJPH
has no threads and no rate control, so it runs once per table at 1 thread)
and Grok -M 64; the sizes compare mallat -M 64 with OpenJPH on the shared
PPM images. --mosaic WxH picks the mosaic's size (15360x8192 for the large
case).

usage: bench/bench_codec.py [--mallat build/tools/mallat] [--runs 5]
       [--testdata ../shared/testdata] [--threads 1,2] [--dwt cpu] [--lossy 20]
       [--ht [--qstep 0.01]] [--mosaic 3840x2048]
A decoder that cannot read a file shows "-".
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def read_ppm(path):
    with open(path, "rb") as f:
        data = f.read()
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos) + 1
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    if fields[0] != b"P6" or int(fields[3]) != 255:
        raise SystemExit(f"{path}: only 8-bit P6 PPM is supported for the mosaic")
    w, h = int(fields[1]), int(fields[2])
    return w, h, data[pos + 1:pos + 1 + w * h * 3]


def mosaic_rows(sources, width, height):
    """The mosaic's rows, top to bottom: the photos tiled side by side."""
    tiles = [read_ppm(p) for p in sources]
    for y in range(height):
        row = bytearray()
        x, i = 0, 0
        while x < width:
            tw, th, px = tiles[(i + (y // tiles[0][1])) % len(tiles)]
            ty = y % th
            take = min(tw, width - x)
            row += px[ty * tw * 3:(ty * tw + take) * 3]
            x += take
            i += 1
        yield bytes(row)


def make_mosaic(sources, width, height, out):
    rows = list(mosaic_rows(sources, width, height))
    with open(out, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (width, height))
        f.writelines(rows)


def timed(cmd, runs, allow_failure=False):
    """Median wall and median user CPU seconds of `runs` runs of cmd, or
    (None, None) when cmd fails and allow_failure is set. User time is
    steadier than wall time on a shared machine."""
    walls, users = [], []
    for _ in range(runs):
        u0 = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
        t0 = time.perf_counter()
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        walls.append(time.perf_counter() - t0)
        users.append(resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - u0)
        if r.returncode != 0:
            if allow_failure:
                return None, None
            raise SystemExit("failed: " + " ".join(cmd) + "\n" + r.stderr.decode(errors="replace"))
    return statistics.median(walls), statistics.median(users)


def load_average():
    return "load average %.2f %.2f %.2f" % os.getloadavg()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mallat", default="build/tools/mallat")
    ap.add_argument("--testdata", default="../shared/testdata")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--dwt", default="cpu")
    ap.add_argument("--no-speed", action="store_true", help="only compare file sizes")
    ap.add_argument("--lossy", type=float, default=0, help="irreversible, at this compression ratio")
    ap.add_argument("--ht", action="store_true", help="HT code-blocks (-M 64), against OpenJPH")
    ap.add_argument("--qstep", type=float, default=0.01, help="OpenJPH's -qstep with --ht --lossy")
    ap.add_argument("--mosaic", default="3840x2048", help="the mosaic's WxH")
    ap.add_argument("--mosaic-from", help="a PPM to tile into the mosaic instead of the shared photos "
                    "(for machines without the shared data); the sizes table is then left out")
    args = ap.parse_args()
    mosaic_w, mosaic_h = (int(v) for v in args.mosaic.split("x"))
    ht = ["-M", "64"] if args.ht else []

    images = os.path.join(args.testdata, "images")
    tmp = tempfile.mkdtemp(prefix="mallat-bench-")
    try:
        lossy = ["-I", "-r", f"{args.lossy:g}"] if args.lossy else []
        # Sizes: every shared image that both codecs read, lossless, defaults.
        total_m = total_o = 0
        other = "ojph" if args.ht else "opj"
        if not lossy:
            print(f"{'image':32} {'mallat':>10} {other:>10} {'ratio':>7}")
        for name in ([] if lossy or args.mosaic_from else sorted(os.listdir(images))):
            if not name.endswith((".ppm",) if args.ht else (".ppm", ".tif", ".bmp")):
                continue
            src = os.path.join(images, name)
            m, o = os.path.join(tmp, "m.j2k"), os.path.join(tmp, "o.j2c")
            subprocess.run([args.mallat, "encode", "-i", src, "-o", m] + ht, check=True)
            other_cmd = (["ojph_compress", "-i", src, "-o", o, "-reversible", "true"] if args.ht
                         else ["opj_compress", "-i", src, "-o", o])
            r = subprocess.run(other_cmd, capture_output=True)
            if r.returncode != 0:
                continue
            sm, so = os.path.getsize(m), os.path.getsize(o)
            total_m += sm
            total_o += so
            print(f"{name:32} {sm:10d} {so:10d} {sm / so:7.4f}")
        if total_o:
            print(f"{'total':32} {total_m:10d} {total_o:10d} {total_m / total_o:7.4f}"
                  f"  (mallat {100.0 * (total_m - total_o) / total_o:+.2f}% vs "
                  f"{'OpenJPH' if args.ht else 'OpenJPEG'})")
        if args.no_speed:
            return

        sources = ([args.mosaic_from] if args.mosaic_from else
                   sorted(os.path.join(images, n) for n in os.listdir(images) if n.endswith(".ppm")))
        mosaic = os.path.join(tmp, "mosaic.ppm")
        make_mosaic(sources, mosaic_w, mosaic_h, mosaic)
        print(f"\nspeed: {mosaic} = {mosaic_w}x{mosaic_h} RGB mosaic of {', '.join(os.path.basename(s) for s in sources)};"
              f" median of {args.runs} runs, whole processes" + (f"; lossy: {' '.join(lossy)}" if lossy else "")
              + ("; HT code-blocks (-M 64)" if args.ht else ""))
        print(f"machine: {os.cpu_count()} CPUs, {load_average()} at the start")
        print(f"{'codec':8} {'threads':>7} {'encode s':>9} {'enc user':>9} {'decode s':>9} {'dec user':>9}"
              f" {'bytes':>10}")
        have_grk = shutil.which("grk_compress") is not None
        for i, t in enumerate(int(x) for x in args.threads.split(",")):
            out = os.path.join(tmp, "x.j2c" if args.ht else "x.j2k")
            dec = os.path.join(tmp, "x.ppm")
            codecs = [
                ("mallat", [args.mallat, "encode", "-i", mosaic, "-o", out, "-threads", str(t), "--dwt", args.dwt]
                 + lossy + ht,
                 [args.mallat, "decode", "-i", out, "-o", dec, "-threads", str(t), "--dwt", args.dwt]),
            ]
            if args.ht and i == 0:
                # OpenJPH: one thread whatever -threads says; shown once.
                quality = ["-qstep", f"{args.qstep:g}"] if lossy else ["-reversible", "true"]
                codecs.append(("ojph", ["ojph_compress", "-i", mosaic, "-o", out] + quality,
                               ["ojph_expand", "-i", out, "-o", dec]))
            if not args.ht:
                codecs.append(("opj", ["opj_compress", "-i", mosaic, "-o", out, "-threads", str(t)] + lossy,
                               ["opj_decompress", "-i", out, "-o", dec, "-threads", str(t)]))
            if have_grk:
                codecs.append(("grok", ["grk_compress", "-i", mosaic, "-o", out, "-H", str(t)] + lossy + ht,
                               ["grk_decompress", "-i", out, "-o", dec, "-H", str(t)]))
            for name, enc, decmd in codecs:
                te, ue = timed(enc, args.runs)
                size = os.path.getsize(out)
                td, ud = timed(decmd, args.runs, allow_failure=bool(lossy))
                tds = f"{td:9.3f} {ud:9.3f}" if td is not None else f"{'-':>9} {'-':>9}"
                shown_t = 1 if name == "ojph" else t
                print(f"{name:8} {shown_t:7d} {te:9.3f} {ue:9.3f} {tds} {size:10d}", flush=True)
        print(f"{load_average()} at the end")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
