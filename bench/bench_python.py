#!/usr/bin/env python3
"""Python-side speed and size: mallat.encode / mallat.decode against glymur
(OpenJPEG through ctypes), lossless and at 1 bit per pixel.

Images: the three shared 640x480 RGB photos (Bretagne1.ppm, Cevennes2.ppm,
Rome.bmp), summed, and a 3840x2048 RGB mosaic tiled from them. Both codecs
write and read JP2 files in the same temporary folder (glymur works on
files): mallat's encode time includes writing its bytes to the file, its
decode time reading them. Lossless: the 5/3 wavelet, 6 resolutions, 64x64
code-blocks, RCT (both libraries' defaults). 1 bpp: the 9/7 wavelet with
ICT, a rate target of 1 bit per pixel (mallat bpp=1; glymur cratios=[24],
irreversible=True, OpenJPEG's -I -r 24). Each time is the median of --runs
runs after one warm-up, per thread count (mallat threads=N; glymur
lib.num_threads=N), as wall / CPU seconds (CPU: this process, all threads;
the less disturbed by other work on a shared machine). Prints a Markdown
table.

usage: PYTHONPATH=build/python /usr/bin/python3 bench/bench_python.py
       [--testdata ../shared/testdata] [--runs 5] [--threads 1,2]
"""
import argparse
import os
import pathlib
import statistics
import tempfile
import time

import glymur
import numpy as np

import mallat

PHOTOS = ("Bretagne1.ppm", "Cevennes2.ppm", "Rome.bmp")


def mosaic(images, height, width):
    """Rows of the photos side by side, repeated to height x width."""
    strip = np.concatenate(images, axis=1)
    reps = (-(-height // strip.shape[0]), -(-width // strip.shape[1]), 1)
    return np.ascontiguousarray(np.tile(strip, reps)[:height, :width])


def median_time(fn, runs):
    """Median wall and CPU (this process, all threads) seconds of fn()."""
    fn()  # warm-up: page cache, allocator, imports
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return float("inf") if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)


def measure(image, lossy, threads, runs, folder):
    """Times, sizes and PSNR of both codecs on one image."""
    ours, theirs = folder / "mallat.jp2", folder / "glymur.jp2"
    options = {"bpp": 1} if lossy else {}
    glymur_options = {"cratios": [24], "irreversible": True} if lossy else {}
    glymur.set_option("lib.num_threads", threads)

    def mallat_encode():
        ours.write_bytes(mallat.encode(image, jp2=True, threads=threads, **options))

    def glymur_encode():
        theirs.unlink(missing_ok=True)
        glymur.Jp2k(str(theirs), data=image, **glymur_options)

    row = {"mallat encode": median_time(mallat_encode, runs), "glymur encode": median_time(glymur_encode, runs)}
    row["mallat decode"] = median_time(lambda: mallat.decode(ours, threads=threads), runs)
    row["glymur decode"] = median_time(lambda: glymur.Jp2k(str(theirs))[:], runs)
    row["mallat bytes"] = ours.stat().st_size
    row["glymur bytes"] = theirs.stat().st_size
    ours_decoded, theirs_decoded = mallat.decode(ours), glymur.Jp2k(str(theirs))[:]
    row["mallat psnr"], row["glymur psnr"] = psnr(ours_decoded, image), psnr(theirs_decoded, image)
    if not lossy:
        assert row["mallat psnr"] == row["glymur psnr"] == float("inf"), "a lossless decode differs"
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    here = pathlib.Path(__file__).resolve().parent
    parser.add_argument("--testdata", default=here.parent.parent / "shared" / "testdata", type=pathlib.Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--threads", default="1,2")
    args = parser.parse_args()

    photos = [mallat.read_image(args.testdata / "images" / name) for name in PHOTOS]
    sets = [("3 photos 640x480 (sum)", photos), ("mosaic 3840x2048", [mosaic(photos, 2048, 3840)])]
    print(f"mallat {mallat.__version__}, glymur {glymur.__version__} with OpenJPEG "
          f"{glymur.version.openjpeg_version}; {os.cpu_count()} CPUs; load average "
          f"{os.getloadavg()[0]:.2f}; median of {args.runs}; wall / CPU seconds")
    print()
    print("| images | mode | threads | encode mallat | encode glymur | decode mallat | decode glymur "
          "| bytes mallat | bytes glymur | PSNR mallat | PSNR glymur |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as tmp:
        for lossy in (False, True):
            for threads in (int(t) for t in args.threads.split(",")):
                for name, images in sets:
                    rows = [measure(img, lossy, threads, args.runs, pathlib.Path(tmp)) for img in images]
                    total = {k: sum(r[k] for r in rows) for k in rows[0] if "bytes" in k}
                    for k in ("mallat encode", "glymur encode", "mallat decode", "glymur decode"):
                        total[k] = "%.3f / %.3f" % tuple(sum(r[k][i] for r in rows) for i in (0, 1))
                    psnrs = [statistics.mean(r[k] for r in rows) for k in ("mallat psnr", "glymur psnr")]
                    print(f"| {name} | {'1 bpp' if lossy else 'lossless'} | {threads} "
                          f"| {total['mallat encode']} | {total['glymur encode']} "
                          f"| {total['mallat decode']} | {total['glymur decode']} "
                          f"| {total['mallat bytes']:,} | {total['glymur bytes']:,} "
                          + "| " + " | ".join("inf" if p == float("inf") else f"{p:.2f}" for p in psnrs) + " |",
                          flush=True)


if __name__ == "__main__":
    main()
