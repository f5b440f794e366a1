"""mallat: JPEG 2000 (ISO/IEC 15444-1 and -15) for numpy arrays.

    import mallat
    data = mallat.encode(image)                  # lossless, a raw codestream (bytes)
    data = mallat.encode(image, bpp=1, jp2=True) # lossy, 1 bit per pixel, a JP2 file
    image = mallat.decode(data)                  # numpy array (height, width[, channels])
    mallat.info(data)                            # size, components, tiles, coding style

    engine = mallat.Engine("auto")               # the GPU where there is one, else the CPU
    images = engine.decode_batch(files)          # a list in, a list out, in order

The coding runs in C++ with the GIL released, so threads calling these at the
same time code in parallel. An Engine keeps its thread pools and device
context for its next calls; mallat.encode and mallat.decode use a default
engine on the CPU (one per calling thread and threads= value). Errors are
exceptions of mallat.errors carrying the codec's message (bad input is a
ValueError). mallat.numcodecs has a Zarr codec, mallat.dask spreads files over
a Dask cluster, mallat.pillow and mallat.pydicom plug mallat into Pillow and
pydicom.
"""

from __future__ import annotations

import errno
import math
import numbers
import os
import threading
from typing import List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _mallat
from ._mallat import DeviceArray
from ._version import version as __version__
from .errors import (CorruptDataError, DecodeWarning, DeviceError, Error, FileError, InternalError,
                     InvalidArgumentError, MissingFileError, ResourceLimitError, UnsupportedError)

__all__ = ["Engine", "DeviceArray", "encode", "decode", "info", "read_image", "write_image", "Error", "InvalidArgumentError",
           "CorruptDataError", "UnsupportedError", "ResourceLimitError", "FileError", "MissingFileError",
           "DeviceError", "InternalError", "DecodeWarning", "__version__"]

#: What encode and decode take as data: bytes-like, or the path of a file.
Data = Union[bytes, bytearray, memoryview, str, "os.PathLike[str]"]
#: A rate target: one number, or one per quality layer.
Targets = Union[float, Sequence[float]]

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


_DLPACK_CUDA = 2  # DLPack's kDLCUDA


def _image_array(image, what="image"):
    if not isinstance(image, np.ndarray) and hasattr(image, "__dlpack_device__") \
            and image.__dlpack_device__()[0] == _DLPACK_CUDA:
        # A device tensor (torch, CuPy, a DeviceArray): its samples copied to
        # the host, where the encoder reads them.
        image = _mallat.host_array_from_dlpack(image.__dlpack__())
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
    name = "rate" if kind == "ratio" else kind
    values = [value] if isinstance(value, numbers.Real) else list(value)
    if not values or not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values):
        raise TypeError(f"{name}= must be a number or a sequence of numbers")
    for v in values:
        if not (v >= 0 and math.isfinite(v)):
            raise InvalidArgumentError(f"{name}={value!r}: each target must be a number >= 0, not {v!r}")
    return kind, [float(v) for v in values]


def _encode_options(*, lossless=None, rate=None, bpp=None, psnr=None, ht=False, tile=None, levels=None,
                    jp2=False):
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
            "jp2": bool(jp2)}


_ENCODE_DOC = """Encode a numpy image as JPEG 2000; returns the bytes.

    image: (height, width) or (height, width, channels) array of uint8, int8,
        uint16, int16, uint32 or int32, any strides, or a C-ordered tensor of
        a CUDA device exporting __dlpack__ (copied to the host). Each channel is a
        component; 3 channels are coded as RGB (with the reversible or
        irreversible colour transform, Annex G), 4 as RGB + alpha, 2 as grey +
        alpha (a JP2 file says so in its cdef box).

    Options (keyword-only):
    bits: int | None = None. The precision of the samples, 1 to the dtype's
        bits (default: the dtype's); every sample is checked to fit. The
        encoder codes 1..16 bits today, so int32/uint32 images need bits <= 16.
    lossless: bool | None = None. None: lossless unless a rate target is
        given, then the irreversible 9/7 wavelet (as opj_compress -I). True:
        the reversible 5/3 wavelet; with a target its layers are cut at the
        target (as opj_compress -r without -I, and glymur's default), and a
        last target of rate=1 (or bpp=0, psnr=0) keeps a lossless final layer.
        False: 9/7, without a target every coding pass is kept (near-lossless).
    rate, bpp, psnr: float | sequence of floats | None = None. One of them, a
        number or a sequence (one quality layer each), each >= 0: compression
        ratios (decreasing; the file is at most raw size / ratio), bits per
        pixel (increasing) or PSNR in dB (increasing).
    ht: bool = False. HT code-blocks (ISO/IEC 15444-15, as `mallat encode
        -M 64`); with a rate target the file has one quality layer (a sequence
        of targets raises InvalidArgumentError).
    tile: int | (int, int) | None = None. Tile size, an int or (height, width);
        default one tile.
    levels: int | None = None. Wavelet decomposition levels (default 5, fewer
        for small images).
    jp2: bool = False. A JP2 file (boxes with the colour space) instead of a
        raw codestream.
{threads}
    Errors: InvalidArgumentError (a ValueError) for an option out of range or
    a sample that does not fit `bits`, UnsupportedError for what the encoder
    cannot code, TypeError for an argument of the wrong type.
    """

_DECODE_DOC = """Decode a JPEG 2000 codestream or JP2 file to a numpy array.

    data: bytes, bytearray, memoryview (any contiguous buffer), or a path.

    Options (keyword-only):
    reduce: int = 0. Discard this many resolution levels (each halves the size).
    layers: int | None = None. Decode only the first N quality layers
        (default all).
    region: (y0, x0, y1, x1) | None = None. Rows y0..y1 and columns x0..x1
        (end excluded) of the full-resolution image, as opj_decompress -d;
        with reduce the output is that rectangle at the reduced resolution.
        Only the tiles, precincts (with PLT) and code-blocks it needs are
        decoded.
    components: int | sequence of ints | None = None. An index (a 2-D result)
        or a sequence of indices (3-D) of the channels to return; negative
        indices count from the end. Only those components' code-blocks are
        decoded (as opj_decompress -c; under the RCT/ICT components 0..2 are
        decoded together), except for a JP2 file whose header makes channels
        of several components (palette, cdef, sYCC): that one is decoded whole
        and the channels picked.
{threads}    out: numpy.ndarray | "cuda" | None = None. An array to decode into (shape as
        the result; any integer dtype that holds the samples, any strides).
        The codec's own sample buffers are still allocated; `out` saves the
        result's. "cuda": a DeviceArray in CUDA device 0's memory, as
        Engine.decode_batch(out="cuda") gives (no region; DeviceError
        without a device); the module-level decode() runs on the CPU, so
        the image goes up from the host: use Engine("cuda") to decode on
        the device.

    Returns (height, width) for one component, (height, width, channels) for
    more; dtype uint8/int8 up to 8 bits, uint16/int16 up to 16, else int32.
    A JP2 file's header is applied (palette, channel order, sYCC to RGB).
    Problems the decoder tolerated are issued as DecodeWarning.

    Errors: CorruptDataError (a ValueError) for bytes that are not JPEG 2000
    or are damaged beyond repair, InvalidArgumentError for an option out of
    range (a region outside the image), MissingFileError (a FileError and a
    FileNotFoundError) for a path that does not exist, FileError for one that
    cannot be read, ResourceLimitError for a header asking for too much memory.
    """

_THREADS_DOC = """    threads: int | None = None. Threads for this call (default all cores):
        the default engine for this thread and this number.
"""

_ERRORS_RAISE = ("raise", "return")


def _byte_view(data):
    """bytes, bytearray, memoryview (any contiguous buffer) or a path, as one
    run of bytes."""
    if isinstance(data, (str, os.PathLike)):
        path = os.fspath(data)
        try:
            with open(path, "rb") as f:
                return f.read()
        except FileNotFoundError as e:
            raise MissingFileError(errno.ENOENT, e.strerror, path) from None
        except OSError as e:
            raise FileError(e.errno, e.strerror, path) from None
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


def _raise_errors(errors):
    if errors not in _ERRORS_RAISE:
        raise InvalidArgumentError(f"errors={errors!r} must be 'raise' or 'return'")
    return errors == "raise"


class Engine:
    """An engine: thread pools, the device (a CUDA GPU) with its context and
    coders, kept for every later call, so a program pays their start once.

    Engine(device="auto", *, threads=0)

    device: "auto" (default): the GPU where this build has CUDA and one
        starts, else the CPU; "cpu"; "cuda": the GPU (DeviceError at the first
        call where there is none or the build has no CUDA). The output bytes
        and arrays are the same on every device.
    threads: int = 0. Threads the engine codes on; 0: one per core. One call
        runs on all of them; a batch on the CPU codes an item per thread (fewer
        where memory would not hold the items together); a batch with a device
        gives each of its lanes all of them.

    The placement rule decides what goes to the device: one small item stays
    on the CPU, a batch's tiles go to the device whole. Calls release the GIL;
    several threads may share an engine (its calls run one at a time).
    Errors: InvalidArgumentError for a device name that is not one of the three.
    """

    def __init__(self, device: str = "auto", *, threads: int = 0) -> None:
        if device not in ("auto", "cpu", "cuda"):
            raise InvalidArgumentError(f"device={device!r} must be 'auto', 'cpu' or 'cuda'")
        self._engine = _mallat.Engine(device, _whole(threads, "threads", 0))

    def __repr__(self) -> str:
        return f"mallat.Engine(device={self.device!r}, threads={self.threads})"

    @property
    def device(self) -> str:
        """The device asked for: 'auto', 'cpu' or 'cuda'."""
        return self._engine.device

    @property
    def threads(self) -> int:
        """Threads of each pool as asked (0: one per core)."""
        return self._engine.threads

    @property
    def device_started(self) -> bool:
        """Whether this engine has started a device coder or context."""
        return self._engine.device_started

    def encode(self, image: np.ndarray, *, lossless: Optional[bool] = None, rate: Optional[Targets] = None,
               bpp: Optional[Targets] = None, psnr: Optional[Targets] = None, ht: bool = False,
               tile: Union[int, Tuple[int, int], None] = None, levels: Optional[int] = None, jp2: bool = False,
               bits: Optional[int] = None) -> bytes:
        array = _image_array(image)
        options = _encode_options(lossless=lossless, rate=rate, bpp=bpp, psnr=psnr, ht=ht, tile=tile,
                                  levels=levels, jp2=jp2)
        return self._engine.encode(array, _bits(array, bits), options)

    def decode(self, data: Data, *, reduce: int = 0, layers: Optional[int] = None,
               region: Optional[Tuple[int, int, int, int]] = None,
               components: Union[int, Sequence[int], None] = None,
               out: Union[np.ndarray, str, None] = None) -> Union[np.ndarray, DeviceArray]:
        if isinstance(out, str):
            # The device's raster is a batch's (one item here): its lanes
            # and tiles on the device, as decode_batch(out="cuda").
            if out != "cuda":
                raise InvalidArgumentError(f"out={out!r} must be a numpy array, None or 'cuda'")
            if region is not None:
                raise InvalidArgumentError("out='cuda' decodes the whole image: it takes no region")
            return self.decode_batch([data], reduce=reduce, layers=layers, components=components, out="cuda")[0]
        chosen, squeeze = _components(components)
        if region is not None:
            region = tuple(_whole(v, "region", 0) for v in region)
            if len(region) != 4:
                raise InvalidArgumentError(f"region={region} must be (y0, x0, y1, x1)")
        if out is not None and not isinstance(out, np.ndarray):
            raise TypeError(f"out must be a numpy array or 'cuda', not {type(out).__name__}")
        return self._engine.decode(_byte_view(data), _whole(reduce, "reduce", 0),
                                   0 if layers is None else _whole(layers, "layers", 1), chosen, region, squeeze,
                                   out)

    def encode_batch(self, images: Sequence[np.ndarray], *, errors: str = "raise",
                     lossless: Optional[bool] = None, rate: Optional[Targets] = None, bpp: Optional[Targets] = None,
                     psnr: Optional[Targets] = None, ht: bool = False,
                     tile: Union[int, Tuple[int, int], None] = None, levels: Optional[int] = None,
                     jp2: bool = False, bits: Optional[int] = None) -> List[Union[bytes, Error]]:
        """Encode a list of images with the same options, several at once (a
        batch's lanes, and its tiles on the device where the engine has one);
        returns their bytes in the same order.

        images: a sequence of arrays as encode() takes them.
        errors: "raise" (default): the first item's error (in order) is
            raised; "return": a failed item's place holds its exception
            (a mallat.Error) and the others are coded.
        lossless, rate, bpp, psnr, ht, tile, levels, jp2, bits: as encode()
            (same defaults), the same for every image.
        Errors: as encode(), for an option; each image's as its item's.
        """
        raise_errors = _raise_errors(errors)
        arrays = [_image_array(image, f"image {i}") for i, image in enumerate(images)]
        options = _encode_options(lossless=lossless, rate=rate, bpp=bpp, psnr=psnr, ht=ht, tile=tile,
                                  levels=levels, jp2=jp2)
        return self._engine.encode_batch(arrays, [_bits(a, bits) for a in arrays], options, raise_errors)

    def decode_batch(self, data: Sequence[Data], *, errors: str = "raise", reduce: int = 0,
                     layers: Optional[int] = None, components: Union[int, Sequence[int], None] = None,
                     out: Optional[str] = None) -> List[Union[np.ndarray, DeviceArray, Error]]:
        """Decode a list of codestreams or JP2 files (bytes-like or paths),
        several at once (a batch's lanes, and its tiles on the device where
        the engine has one); returns their arrays in the same order.

        errors: "raise" (default): the first item's error (in order) is
            raised; "return": a failed item's place holds its exception
            (a mallat.Error, MissingFileError for a path that does not exist)
            and the others are decoded.
        reduce, layers: as decode() (same defaults), for every item.
        components: as decode(), picked from each item decoded whole.
        out: None (default): numpy arrays; "cuda": DeviceArray objects in
            CUDA device 0's memory, exporting __dlpack__ and __dlpack_device__
            (torch.from_dlpack takes them as they are), of the numpy array's
            shape and dtype. An image of up to 8 bits decoded whole on the
            device never leaves it; one decoded on the CPU goes up from the
            host.
        Errors: as decode(), for an option; each item's as its item's;
            DeviceError for out="cuda" without a device or without CUDA in
            this build.
        Problems the decoder tolerated are issued as DecodeWarning, naming
        the item.
        """
        raise_errors = _raise_errors(errors)
        if out not in (None, "cuda"):
            raise InvalidArgumentError(f"out={out!r} must be None or 'cuda'")
        chosen, squeeze = _components(components)
        reduce = _whole(reduce, "reduce", 0)
        layers = 0 if layers is None else _whole(layers, "layers", 1)
        views, unread = [], {}
        for i, d in enumerate(data):
            try:
                views.append(_byte_view(d))
            except FileError as e:
                unread[i] = e
                views.append(b"")
        # A file that could not be read takes its place among the items'
        # errors: "raise" raises the first in order, whichever it is.
        results = self._engine.decode_batch(views, reduce, layers, chosen, squeeze, raise_errors and not unread,
                                            out == "cuda")
        results[:] = [unread.get(i, r) for i, r in enumerate(results)]
        if raise_errors:
            for r in results:
                if isinstance(r, Exception):
                    raise r
        if out == "cuda":
            results = [_on_device(r, raise_errors) for r in results]
        return results


def _on_device(result, raise_errors: bool):
    """A decode_batch result that came back on the host (an image that gives
    no byte raster, or components=) copied up as out="cuda" asks; a failed
    copy is the item's error (raised, or in its place with errors="return")."""
    if not isinstance(result, np.ndarray):
        return result
    try:
        return DeviceArray(np.ascontiguousarray(result))
    except Error as e:
        if raise_errors:
            raise
        return e


Engine.encode.__doc__ = _ENCODE_DOC.format(threads="")
Engine.decode.__doc__ = _DECODE_DOC.format(threads="")

_defaults = threading.local()


def _default_engine(threads) -> Engine:
    """The default engine on the CPU of this Python thread for `threads`
    (one per thread, so that threads calling mallat.encode at once each code
    on pools of their own, as on engines of their own)."""
    threads = _threads(threads)
    engines = getattr(_defaults, "engines", None)
    if engines is None:
        engines = _defaults.engines = {}
    engine = engines.get(threads)
    if engine is None:
        engine = engines[threads] = Engine("cpu", threads=threads)
    return engine


def encode(image: np.ndarray, *, lossless: Optional[bool] = None, rate: Optional[Targets] = None,
           bpp: Optional[Targets] = None, psnr: Optional[Targets] = None, ht: bool = False,
           tile: Union[int, Tuple[int, int], None] = None, levels: Optional[int] = None, jp2: bool = False,
           threads: Optional[int] = None, bits: Optional[int] = None) -> bytes:
    return _default_engine(threads).encode(image, lossless=lossless, rate=rate, bpp=bpp, psnr=psnr, ht=ht,
                                           tile=tile, levels=levels, jp2=jp2, bits=bits)


def decode(data: Data, *, reduce: int = 0, layers: Optional[int] = None,
           region: Optional[Tuple[int, int, int, int]] = None, components: Union[int, Sequence[int], None] = None,
           threads: Optional[int] = None, out: Union[np.ndarray, str, None] = None) -> Union[np.ndarray, DeviceArray]:
    return _default_engine(threads).decode(data, reduce=reduce, layers=layers, region=region,
                                           components=components, out=out)


encode.__doc__ = _ENCODE_DOC.format(threads=_THREADS_DOC)
decode.__doc__ = _DECODE_DOC.format(threads=_THREADS_DOC)


def info(data: Data) -> dict:
    """What a codestream's or JP2 file's headers say, without decoding:
    height, width, components, bits, signed, subsampling ((dy, dx) each),
    origin, tile_size, tile_origin, tiles, levels, layers, progression,
    reversible, mct, code_block_size, ht, container ('j2k' or 'jp2') and, for
    JP2, 'jp2' (colour_space, palette, channel_roles). The components are the
    codestream's: a JP2 palette makes decode() return more channels."""
    return _mallat.info(_byte_view(data))


def read_image(path: Union[str, "os.PathLike[str]"]) -> np.ndarray:
    """Read a PNG, TIFF, PNM, PGX or BMP file (samples as stored) into an
    array, as decode() shapes and types them."""
    return _mallat.read_image(os.fspath(path))


def write_image(path: Union[str, "os.PathLike[str]"], image: np.ndarray, *, bits: Optional[int] = None) -> None:
    """Write an array as PNG, TIFF, PNM, PGX or BMP (the format from the
    suffix), atomically (a temporary file renamed into place).

    bits: int | None = None. The samples' precision, as encode() takes it.
    Errors: FileError (MissingFileError where the folder does not exist),
    InvalidArgumentError for an array the format cannot hold."""
    array = _image_array(image)
    _mallat.write_image(os.fspath(path), array, _bits(array, bits))
