"""mallat: JPEG 2000 (ISO/IEC 15444-1) for numpy arrays.

    import mallat
    data = mallat.encode(image)                  # lossless, a raw codestream (bytes)
    data = mallat.encode(image, bpp=1, jp2=True) # lossy, 1 bit per pixel, a JP2 file
    image = mallat.decode(data)                  # numpy array (height, width[, channels])
    mallat.info(data)                            # size, components, tiles, coding style

The coding runs in C++ with the GIL released, so threads calling these at the
same time code in parallel. Errors are exceptions of mallat.errors carrying
the codec's message (bad input is a ValueError). mallat.numcodecs has a Zarr
codec, mallat.dask spreads files over a Dask cluster.
"""

import numbers
import os

import numpy as np

from . import _mallat
from ._version import version as __version__
from .errors import (CorruptDataError, DecodeWarning, DeviceError, Error, FileError, InternalError,
                     InvalidArgumentError, ResourceLimitError, UnsupportedError)

__all__ = ["encode", "decode", "info", "read_image", "write_image", "Error", "InvalidArgumentError",
           "CorruptDataError", "UnsupportedError", "ResourceLimitError", "FileError", "DeviceError",
           "InternalError", "DecodeWarning", "__version__"]

# The dtypes an image may have, and the sample precision each gives by default.
_DTYPE_BITS = {np.dtype(t): np.dtype(t).itemsize * 8
               for t in (np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32)}


def _whole(value, name, minimum):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, not {type(value).__name__}")
    if value < minimum:
        raise InvalidArgumentError(f"{name}={value} must be at least {minimum}")
    return int(value)


def _threads(threads):
    return 0 if threads is None else _whole(threads, "threads", 0)


def _image_array(image, what="image"):
    array = np.asarray(image)
    if not array.dtype.isnative:  # big-endian data on a little-endian machine, say
        array = array.astype(array.dtype.newbyteorder("="))
    if array.dtype not in _DTYPE_BITS:
        raise InvalidArgumentError(f"{what} has dtype {array.dtype}; mallat takes "
                                   "uint8, int8, uint16, int16, uint32 or int32")
    if array.ndim not in (2, 3):
        raise InvalidArgumentError(f"{what} has shape {array.shape}; mallat takes "
                                   "(height, width) or (height, width, channels)")
    return array


def _bits(array, bits):
    return _DTYPE_BITS[array.dtype] if bits is None else _whole(bits, "bits", 1)


def _rate_targets(rate, bpp, psnr):
    given = [(kind, value) for kind, value in (("ratio", rate), ("bpp", bpp), ("psnr", psnr))
             if value is not None]
    if not given:
        return "none", []
    if len(given) > 1:
        raise InvalidArgumentError("give one of rate=, bpp= and psnr=, not "
                                   + " and ".join(k if k != "ratio" else "rate" for k, _ in given))
    kind, value = given[0]
    values = [value] if isinstance(value, numbers.Real) else list(value)
    if not values or not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values):
        raise TypeError(f"{'rate' if kind == 'ratio' else kind}= must be a number or a sequence of numbers")
    return kind, [float(v) for v in values]


def _encode_options(*, lossless=None, rate=None, bpp=None, psnr=None, ht=False, tile=None, levels=None,
                    jp2=False, threads=None):
    """encode()'s coding options, checked, as the extension takes them."""
    rate_kind, rate_values = _rate_targets(rate, bpp, psnr)
    if lossless is None:
        lossless = rate_kind == "none"
    if tile is None:
        tile = (0, 0)
    elif isinstance(tile, numbers.Integral):
        tile = (_whole(tile, "tile", 1),) * 2
    else:
        tile = tuple(_whole(t, "tile", 1) for t in tile)
        if len(tile) != 2:
            raise InvalidArgumentError(f"tile={tile} must be a size or (height, width)")
    return {"reversible": bool(lossless), "rate_kind": rate_kind, "rate_values": rate_values,
            "ht": bool(ht), "tile": tile, "levels": -1 if levels is None else _whole(levels, "levels", 0),
            "jp2": bool(jp2), "threads": _threads(threads)}


def encode(image, *, lossless=None, rate=None, bpp=None, psnr=None, ht=False, tile=None, levels=None,
           jp2=False, threads=None, bits=None):
    """Encode a numpy image as JPEG 2000; returns the bytes.

    image: (height, width) or (height, width, channels) array of uint8, int8,
        uint16, int16, uint32 or int32, any strides. Each channel is a
        component; 3 channels are coded as RGB (with the reversible or
        irreversible colour transform, Annex G), 4 as RGB + alpha, 2 as grey +
        alpha (a JP2 file says so in its cdef box).
    bits: the precision of the samples, 1 to the dtype's bits (default: the
        dtype's); every sample is checked to fit. The encoder codes 1..16 bits
        today, so int32/uint32 images need bits <= 16.
    lossless: None (default): lossless unless a rate target is given, then the
        irreversible 9/7 wavelet (as opj_compress -I). True: the reversible
        5/3 wavelet; with a target its layers are cut at the target (as
        opj_compress -r without -I, and glymur's default), and a last target
        of rate=1 (or bpp=0, psnr=0) keeps a lossless final layer. False: 9/7,
        without a target every coding pass is kept (near-lossless).
    rate, bpp, psnr: one of them, a number or a sequence (one quality layer
        each): compression ratios (decreasing; the file is at most raw size /
        ratio), bits per pixel (increasing) or PSNR in dB (increasing).
    ht: HT code-blocks (ISO/IEC 15444-15, as `mallat encode -M 64`); with a
        rate target the file has one quality layer (a sequence of targets
        raises InvalidArgumentError).
    tile: tile size, an int or (height, width); default one tile.
    levels: wavelet decomposition levels (default 5, fewer for small images).
    jp2: a JP2 file (boxes with the colour space) instead of a raw codestream.
    threads: threads for this call (default all cores).
    """
    array = _image_array(image)
    options = _encode_options(lossless=lossless, rate=rate, bpp=bpp, psnr=psnr, ht=ht, tile=tile,
                              levels=levels, jp2=jp2, threads=threads)
    return _mallat.encode(array, _bits(array, bits), options)


def _byte_view(data):
    """bytes, bytearray, memoryview (any contiguous buffer) or a path, as one
    run of bytes."""
    if isinstance(data, (str, os.PathLike)):
        with open(data, "rb") as f:
            return f.read()
    try:
        view = memoryview(data)
    except TypeError:
        raise TypeError("data must be bytes, bytearray, memoryview, another buffer or a path, "
                        f"not {type(data).__name__}") from None
    if not view.c_contiguous:
        raise InvalidArgumentError("data must be a contiguous buffer")
    return view.cast("B") if view.format != "B" or view.ndim != 1 else view


def _components(components):
    if components is None:
        return None, True
    if isinstance(components, numbers.Integral) and not isinstance(components, bool):
        return [int(components)], True
    chosen = list(components)
    if not all(isinstance(c, numbers.Integral) and not isinstance(c, bool) for c in chosen):
        raise TypeError("components= must be an index or a sequence of indices")
    return [int(c) for c in chosen], False


def decode(data, *, reduce=0, layers=None, region=None, components=None, threads=None, out=None):
    """Decode a JPEG 2000 codestream or JP2 file to a numpy array.

    data: bytes, bytearray, memoryview (any contiguous buffer), or a path.
    reduce: discard this many resolution levels (each halves the size).
    layers: decode only the first N quality layers (default all).
    region: (y0, x0, y1, x1), rows y0..y1 and columns x0..x1 (end excluded) of
        the full-resolution image, as opj_decompress -d; with reduce the
        output is that rectangle at the reduced resolution. Only the tiles,
        precincts (with PLT) and code-blocks it needs are decoded.
    components: an index (a 2-D result) or a sequence of indices (3-D) of the
        channels to return; negative indices count from the end. Only those
        components' code-blocks are decoded (as opj_decompress -c; under the
        RCT/ICT components 0..2 are decoded together), except for a JP2 file
        whose header makes channels of several components (palette, cdef,
        sYCC): that one is decoded whole and the channels picked.
    threads: threads for this call (default all cores).
    out: an array to decode into (shape as the result; any integer dtype
        that holds the samples, any strides). The codec's own sample buffers
        are still allocated; `out` saves the result's.

    Returns (height, width) for one component, (height, width, channels) for
    more; dtype uint8/int8 up to 8 bits, uint16/int16 up to 16, else int32.
    A JP2 file's header is applied (palette, channel order, sYCC to RGB).
    Problems the decoder tolerated are issued as DecodeWarning.
    """
    chosen, squeeze = _components(components)
    if region is not None:
        region = tuple(_whole(v, "region", 0) for v in region)
        if len(region) != 4:
            raise InvalidArgumentError(f"region={region} must be (y0, x0, y1, x1)")
    if out is not None and not isinstance(out, np.ndarray):
        raise TypeError(f"out must be a numpy array, not {type(out).__name__}")
    return _mallat.decode(_byte_view(data), _whole(reduce, "reduce", 0),
                          0 if layers is None else _whole(layers, "layers", 1), _threads(threads),
                          chosen, region, squeeze, out)


def info(data):
    """What a codestream's or JP2 file's headers say, without decoding:
    height, width, components, bits, signed, subsampling ((dy, dx) each),
    origin, tile_size, tile_origin, tiles, levels, layers, progression,
    reversible, mct, code_block_size, ht, container ('j2k' or 'jp2') and, for
    JP2, 'jp2' (colour_space, palette, channel_roles). The components are the
    codestream's: a JP2 palette makes decode() return more channels."""
    return _mallat.info(_byte_view(data))


def read_image(path):
    """Read a PNG, TIFF, PNM, PGX or BMP file (samples as stored) into an
    array, as decode() shapes and types them."""
    return _mallat.read_image(os.fspath(path))


def write_image(path, image, *, bits=None):
    """Write an array as PNG, TIFF, PNM, PGX or BMP (from the extension),
    atomically (a temporary file renamed into place)."""
    array = _image_array(image)
    _mallat.write_image(os.fspath(path), array, _bits(array, bits))
