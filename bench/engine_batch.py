#!/usr/bin/env python3
"""Python's batches against the command line's: mallat.Engine.decode_batch of
in-memory files (its second call, so no start-up is in it) against
`mallat decode -i DIR` of the same files written to a folder, per image.

Two workloads:
- COUNT copies of a 3840x2048 RGB image (--image, e.g. the mosaic of the
  shared photos) coded losslessly, decoded with --device (default cuda): as
  numpy arrays, and with out="cuda" where the device is cuda;
- SMALL 768x512 crops of it (a grid of them, repeated), decoded on the CPU.
Each Python figure is the median of --runs timed calls after one warm-up
call; each command's the median of --runs runs (the command's wall time
includes its process and, on the device, CUDA's start). Prints Markdown.

usage: PYTHONPATH=build/python python3 bench/engine_batch.py --image .gpu/mosaic.ppm
       --cli build/tools/mallat [--count 64] [--small 216] [--runs 3] [--device cuda] [--ht]
"""
import argparse
import os
import statistics
import subprocess
import tempfile
import time

import numpy as np

import mallat


def median_time(call, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def command_time(argv, runs):
    return median_time(lambda: subprocess.run(argv, check=True, stdout=subprocess.DEVNULL), runs)


def python_batch(engine, files, runs, out=None):
    engine.decode_batch(files, out=out)  # the warm-up: the engine's lanes, pools and device made
    return median_time(lambda: engine.decode_batch(files, out=out), runs)


def write_files(folder, files):
    os.makedirs(folder, exist_ok=True)
    for i, data in enumerate(files):
        with open(os.path.join(folder, f"f{i:04d}.j2k"), "wb") as f:
            f.write(data)


def cli_batch(cli, folder, out, device, runs):
    return command_time([cli, "decode", "-i", folder, "-o", out, "-OutFor", "ppm", "-quiet", "--device", device],
                        runs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--image", required=True)
    parser.add_argument("--cli", required=True)
    parser.add_argument("--count", type=int, default=64)
    parser.add_argument("--small", type=int, default=216)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--device", default="cuda", choices=("cpu", "cuda"))
    parser.add_argument("--ht", action="store_true", help="HT code-blocks instead of Part 1's")
    args = parser.parse_args()

    image = mallat.read_image(args.image)
    if image.ndim != 3 or image.shape[0] < 512 or image.shape[1] < 768:
        raise SystemExit(f"{args.image}: an RGB image of at least 768x512 is needed, not {image.shape}")
    coder = mallat.Engine("cpu")
    big = coder.encode(image, ht=args.ht)
    big_files = [big] * args.count
    crops = []
    rows, cols = image.shape[0] // 512, image.shape[1] // 768
    for i in range(args.small):
        y, x = (i // cols) % rows, i % cols
        # The crops on a grid, repeated when there are more files than cells.
        crops.append(np.ascontiguousarray(image[y * 512:(y + 1) * 512, x * 768:(x + 1) * 768]))
    small_files = coder.encode_batch(crops, ht=args.ht)

    kind = "HT" if args.ht else "Part 1"
    print(f"| {kind} lossless, ms per image | Engine.decode_batch | out=\"cuda\" | `mallat decode -i DIR` |")
    print("| --- | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as tmp:
        write_files(os.path.join(tmp, "big"), big_files)
        write_files(os.path.join(tmp, "small"), small_files)
        engine = mallat.Engine(args.device)
        host = python_batch(engine, big_files, args.runs)
        device = None
        if args.device == "cuda":
            device = python_batch(engine, big_files, args.runs, out="cuda")
            # The device's arrays hold the host's samples (a figure of wrong output would mean nothing).
            on_device, on_host = engine.decode_batch(big_files[:2], out="cuda"), engine.decode_batch(big_files[:2])
            for got, want in zip(on_device, on_host):
                assert got.shape == want.shape and got.dtype == want.dtype and np.array_equal(got.to_host(), want)
        cli = cli_batch(args.cli, os.path.join(tmp, "big"), os.path.join(tmp, "big_out"), args.device, args.runs)
        shown = f"{device * 1e3 / args.count:.2f}" if device is not None else "-"
        print(f"| {args.count} files of {image.shape[1]}x{image.shape[0]}, --device {args.device} | "
              f"{host * 1e3 / args.count:.2f} | {shown} | {cli * 1e3 / args.count:.2f} |")
        engine = mallat.Engine("cpu")
        host = python_batch(engine, small_files, args.runs)
        cli = cli_batch(args.cli, os.path.join(tmp, "small"), os.path.join(tmp, "small_out"), "cpu", args.runs)
        print(f"| {args.small} files of 768x512, --device cpu | {host * 1e3 / args.small:.2f} | - | "
              f"{cli * 1e3 / args.small:.2f} |")


if __name__ == "__main__":
    main()
