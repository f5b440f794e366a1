#!/usr/bin/env python3
"""The README's Dask example: the shared images to JP2 and back on a cluster,
and an image to Zarr with JPEG 2000 chunks.

    PYTHONPATH=build/python /usr/bin/python3 python/examples/dask_example.py [SCHEDULER]

Without SCHEDULER it starts a LocalCluster of two worker processes; with one
(tcp://host:8786) it uses that cluster, whose workers must see the same files
(the shared test data and /tmp/mallat-dask here: a shared file system) and
import mallat."""
import pathlib
import sys
import time

import dask.array as da
import zarr
from distributed import Client, LocalCluster

import mallat
import mallat.dask

testdata = pathlib.Path(__file__).resolve().parents[3] / "shared" / "testdata" / "images"
out = pathlib.Path("/tmp/mallat-dask")

if __name__ == "__main__":
    if len(sys.argv) > 1:
        cluster, client = None, Client(sys.argv[1])
    else:
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None)
        client = Client(cluster)
    with client:
        paths = sorted(testdata.glob("*.ppm")) + sorted(testdata.glob("flower-rgb-contig-*.tif"))
        start = time.perf_counter()
        jp2 = mallat.dask.encode_files(paths, out / "jp2", client=client)  # lossless JP2, one task per file
        encoded = time.perf_counter() - start
        png = mallat.dask.decode_files(jp2, out / "png", client=client)
        decoded = time.perf_counter() - start - encoded
        raw = sum(mallat.read_image(p).nbytes for p in paths)
        size = sum(pathlib.Path(p).stat().st_size for p in jp2)
        print(f"{len(client.scheduler_info()['workers'])} workers; {len(paths)} files encoded in {encoded:.2f} s, "
              f"decoded in {decoded:.2f} s; {raw:,} sample bytes -> {size:,} bytes of JP2")
        same = all((mallat.read_image(a) == mallat.read_image(b)).all() for a, b in zip(paths, png))
        print(f"decoded PNGs equal the originals: {same}")

        image = da.from_array(mallat.read_image(testdata / "Bretagne1.ppm"), chunks=(256, 256, 3))
        mallat.dask.to_zarr(image, str(out / "bretagne.zarr"), overwrite=True)  # lossless chunks
        z = zarr.open(str(out / "bretagne.zarr"), mode="r")
        print(f"zarr: shape {z.shape}, chunks {z.chunks}, {z.compressor}, {z.nbytes:,} bytes stored in "
              f"{z.nbytes_stored:,}; equal: {bool((z[...] == image.compute()).all())}")
    if cluster is not None:
        cluster.close()
