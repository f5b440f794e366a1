#!/usr/bin/env python3
"""docs/PYTHON.md's Dask example: image files to JP2 and back on a cluster,
checked against the originals, and an image to Zarr with JPEG 2000 chunks.

    PYTHONPATH=build/python /usr/bin/python3 python/examples/dask_example.py \\
        [--images DIR] [--out DIR] [SCHEDULER]

--images: a folder of PNG, TIFF, PNM, PGX or BMP files; without it the
example makes four images of its own. It fails (exit status 1) when it has
no image, or when a decoded file differs from its original. Without
SCHEDULER it starts a LocalCluster of two worker processes; with one
(tcp://host:8786) it uses that cluster, whose workers must see the same files
(--out, default a new temporary folder: a shared file system) and import
mallat."""
import argparse
import pathlib
import sys
import tempfile
import time

import numpy as np

import mallat

SUFFIXES = {".png", ".tif", ".tiff", ".ppm", ".pgm", ".pnm", ".pgx", ".bmp"}


def made_images(folder):
    """Four images (grey and RGB, 8 and 16 bits) written as PNG and PNM."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    paths = []
    for i, (shape, dtype, suffix) in enumerate([((300, 400, 3), np.uint8, ".png"), ((256, 256), np.uint16, ".png"),
                                                ((200, 320, 3), np.uint8, ".ppm"), ((240, 180), np.uint8, ".pgm")]):
        y, x = np.indices(shape[:2])
        base = (x * 7 + y * 3 + 40 * np.sin(x / 17.0) * np.cos(y / 23.0)).astype(np.int64)
        if len(shape) == 3:
            base = base[:, :, None] + np.arange(shape[2]) * 50
        image = (base + rng.integers(0, 8, size=shape)) % (np.iinfo(dtype).max + 1)
        path = folder / f"image{i}{suffix}"
        mallat.write_image(path, image.astype(dtype))
        paths.append(path)
    return paths


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scheduler", nargs="?")
    parser.add_argument("--images", type=pathlib.Path)
    parser.add_argument("--out", type=pathlib.Path)
    args = parser.parse_args()
    out = args.out or pathlib.Path(tempfile.mkdtemp(prefix="mallat-dask-"))
    if args.images:
        paths = sorted(p for p in args.images.iterdir() if p.suffix.lower() in SUFFIXES)
    else:
        paths = made_images(out / "images")
    if not paths:
        print(f"no image files in {args.images}", file=sys.stderr)
        return 1
    # Dask and Zarr once there is work for them (their import takes seconds).
    import dask.array as da
    import zarr
    from distributed import Client, LocalCluster

    import mallat.dask

    if args.scheduler:
        cluster, client = None, Client(args.scheduler)
    else:
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None)
        client = Client(cluster)
    with client:
        start = time.perf_counter()
        jp2 = mallat.dask.encode_files(paths, out / "jp2", client=client)  # lossless JP2, one task per file
        encoded = time.perf_counter() - start
        png = mallat.dask.decode_files(jp2, out / "png", client=client)
        decoded = time.perf_counter() - start - encoded
        raw = sum(mallat.read_image(p).nbytes for p in paths)
        size = sum(pathlib.Path(p).stat().st_size for p in jp2)
        print(f"{len(client.scheduler_info()['workers'])} workers; {len(paths)} files encoded in {encoded:.2f} s, "
              f"decoded in {decoded:.2f} s; {raw:,} sample bytes -> {size:,} bytes of JP2")
        differ = [str(a) for a, b in zip(paths, png) if not np.array_equal(mallat.read_image(a), mallat.read_image(b))]
        print(f"decoded PNGs equal the originals: {not differ}")

        image = mallat.read_image(paths[0])
        chunks = (128, 128) + image.shape[2:]
        mallat.dask.to_zarr(da.from_array(image, chunks=chunks), str(out / "image.zarr"), overwrite=True)
        z = zarr.open(str(out / "image.zarr"), mode="r")
        same = bool((z[...] == image).all())
        print(f"zarr: shape {z.shape}, chunks {z.chunks}, {z.compressor}, {z.nbytes:,} bytes stored in "
              f"{z.nbytes_stored:,}; equal: {same}")
    if cluster is not None:
        cluster.close()
    if differ or not same:
        print("differ: " + ", ".join(differ) if differ else "the Zarr array differs", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
