"""Bulk work over a Dask cluster (distributed): image files to JPEG 2000 and
back, one task per file, and Dask arrays to Zarr with JPEG 2000 chunks.

    from distributed import Client
    import mallat.dask
    client = Client("tcp://scheduler:8786")      # or LocalCluster(); or none: threads here
    outputs = mallat.dask.encode_files(paths, "/shared/out", client=client, psnr=45)
    mallat.dask.decode_files(outputs, "/shared/png", client=client)
    mallat.dask.to_zarr(dask_array, "/shared/slide.zarr")

The workers read the inputs and write the outputs themselves: the paths and
the output folder must be the same on every worker (a shared file system).
Each worker needs mallat importable (the same PYTHONPATH or installation).
"""

import os
import pathlib
import sys
from concurrent.futures import ThreadPoolExecutor

import mallat


def _write_atomic(path, data):
    """The file appears whole or not at all (as the codec's own writers)."""
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def _encode_file(source, target, options):
    # The image is read by the codec's own readers (PNG, TIFF, PNM, PGX, BMP)
    # so its precision and colour space reach the codestream as they are.
    threads, options = options
    _write_atomic(target, mallat._default_engine(threads)._engine.encode_file(source, options))
    return target


def _decode_file(source, target, reduce, layers, threads):
    mallat._default_engine(threads)._engine.decode_to_file(mallat._byte_view(source), target, reduce, layers)
    return target


def _default_client():
    """The Dask client this process has made, if any (as Dask's own
    functions use it); importing distributed only to learn there is none
    would cost a second."""
    if "distributed" not in sys.modules:
        return None
    try:
        return sys.modules["distributed"].default_client()
    except ValueError:
        return None


def _run(function, sources, targets, extra, client):
    if client is None:
        client = _default_client()
    if client is None:
        # No cluster: threads in this process (the codec releases the GIL).
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            return list(pool.map(lambda st: function(st[0], st[1], *extra), zip(sources, targets)))
    n = len(sources)
    futures = client.map(function, sources, targets, *[[e] * n for e in extra], pure=False)
    return client.gather(futures)


def _targets(paths, out_dir, suffix):
    sources = [os.fspath(p) for p in paths]
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    targets = [os.fspath(out / (pathlib.Path(p).stem + suffix)) for p in sources]
    seen = {}
    for source, target in zip(sources, targets):
        if target in seen:
            raise mallat.InvalidArgumentError(f"{seen[target]} and {source} would both be written to {target}")
        seen[target] = source
    return sources, targets


def encode_files(paths, out_dir, client=None, *, jp2=True, threads=1, **options):
    """Encode image files (PNG, TIFF, PNM, PGX, BMP) to out_dir/<stem>.jp2
    (or .j2k with jp2=False), one task per file, on `client`'s cluster (or
    the default client, or else threads in this process).

    options: as mallat.encode (lossless, rate, bpp, psnr, ht, tile, levels).
    threads: per file (default 1: the files already run in parallel).
    Returns the output paths in the order of `paths`. An error in any file
    is raised here, with the codec's message naming the file.
    """
    settings = (mallat._threads(threads), mallat._encode_options(jp2=jp2, **options))
    sources, targets = _targets(paths, out_dir, ".jp2" if jp2 else ".j2k")
    return _run(_encode_file, sources, targets, (settings,), client)


def decode_files(paths, out_dir, client=None, *, suffix=".png", reduce=0, layers=None, threads=1):
    """Decode JPEG 2000 files to out_dir/<stem><suffix> (.png, .tif, .ppm,
    .pgm, .pgx, .bmp: the format from the suffix), one task per file, as
    encode_files. Returns the output paths in the order of `paths`."""
    reduce = mallat._whole(reduce, "reduce", 0)
    layers = 0 if layers is None else mallat._whole(layers, "layers", 1)
    sources, targets = _targets(paths, out_dir, suffix)
    return _run(_decode_file, sources, targets, (reduce, layers, mallat._threads(threads)), client)


def to_zarr(array, store, *, component=None, overwrite=False, compute=True, threads=1, **codec_options):
    """Write a Dask array to Zarr with JPEG 2000 chunks (mallat.numcodecs):
    dask.array.to_zarr with the codec as the compressor, each chunk coded on
    the worker that holds it. `array` is (height, width[, channels]), or has
    more axes before those chunked by 1 (a (depth, height, width) volume
    chunked (1, h, w) gives 2-D chunks).
    codec_options: as mallat.numcodecs.Jpeg2000 (lossless unless a rate
    target is given). Returns what dask.array.to_zarr returns."""
    import dask.array as da

    from mallat.numcodecs import Jpeg2000

    # Each chunk must be an image once leading axes of size one are dropped
    # (mallat.numcodecs): every axis before the last three chunked by 1.
    for axis in range(array.ndim - 2):
        if any(c != 1 for c in array.chunks[axis]):
            if axis < array.ndim - 3:
                raise mallat.InvalidArgumentError(
                    f"axis {axis} has chunks {array.chunks[axis]}: chunk every axis before the last three by 1")
            break
    return da.to_zarr(array, store, component=component, overwrite=overwrite, compute=compute,
                      compressor=Jpeg2000(threads=threads, **codec_options))
