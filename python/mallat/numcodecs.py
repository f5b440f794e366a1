"""A numcodecs codec that stores each Zarr chunk as a JPEG 2000 codestream.

    import zarr
    from mallat.numcodecs import Jpeg2000
    z = zarr.open("slide.zarr", mode="w", shape=(8192, 8192, 3), chunks=(512, 512, 3),
                  dtype="uint8", compressor=Jpeg2000())          # lossless
    z = zarr.open(..., compressor=Jpeg2000(psnr=45))              # lossy, 45 dB a chunk

A chunk is (height, width) or (height, width, channels); leading axes of size
one are dropped first, so (1, height, width) chunks of a (depth, height,
width) volume, or (1, 1, 1, y, x) chunks of an OME-Zarr image, work too. The codec is registered with numcodecs under
'mallat_jpeg2000' when this module is imported, and through the package's
numcodecs entry point, so an existing array opens with zarr.open alone.
"""

import numpy as np
from numcodecs.abc import Codec
from numcodecs.compat import ensure_ndarray, ndarray_copy
from numcodecs.registry import register_codec

import mallat


def _chunk_image(array):
    """The (height, width[, channels]) image of a chunk: leading axes of size
    one dropped while more than two are left. Zarr keeps the chunk's shape
    itself, so only the samples' order (C order) must survive the codec."""
    while array.ndim > 2 and array.shape[0] == 1:
        array = array[0]
    if array.ndim > 3:
        raise mallat.InvalidArgumentError(
            f"a chunk of shape {array.shape}: Jpeg2000 codes (height, width) or (height, width, channels) "
            "chunks; chunk the leading axes by 1")
    return array


class Jpeg2000(Codec):
    """JPEG 2000 chunks through mallat.encode / mallat.decode.

    lossless, rate, bpp, psnr, levels, tile, ht: as mallat.encode (lossless
        unless a rate target is given).
    bits: the samples' precision when below the dtype's (say 12-bit data in
        uint16, or int32 labels below 2^15); then give `dtype` too, so that
        decoding returns the array's dtype.
    threads: threads per chunk (default all cores); under Dask, where chunks
        run in parallel already, threads=1 avoids oversubscription. Not part
        of the stored configuration.
    """

    codec_id = "mallat_jpeg2000"

    def __init__(self, lossless=None, rate=None, bpp=None, psnr=None, levels=None, tile=None, ht=False,
                 bits=None, dtype=None, threads=None):
        self.lossless = lossless
        self.rate = rate
        self.bpp = bpp
        self.psnr = psnr
        self.levels = levels
        self.tile = tile
        self.ht = ht
        self.bits = bits
        self.dtype = None if dtype is None else np.dtype(dtype).str
        self._threads = threads
        if bits is not None and dtype is None:
            raise mallat.InvalidArgumentError("Jpeg2000(bits=...) needs dtype= too: decoding returns the "
                                              "smallest dtype that holds `bits`, Zarr needs the array's")
        # Check the options now rather than at the first chunk.
        self._options = mallat._encode_options(lossless=lossless, rate=rate, bpp=bpp, psnr=psnr, ht=ht,
                                               tile=tile, levels=levels)
        mallat._threads(threads)

    def encode(self, buf):
        array = _chunk_image(ensure_ndarray(buf))
        array = mallat._image_array(array, "the chunk")
        engine = mallat._default_engine(self._threads)._engine
        return engine.encode(array, mallat._bits(array, self.bits), self._options)

    def decode(self, buf, out=None):
        threads = self._threads
        if out is not None:
            dest = ensure_ndarray(out)
            facts = mallat.info(buf)
            shape = (facts["height"], facts["width"]) + ((facts["components"],) if facts["components"] > 1 else ())
            if (dest.dtype in mallat._DTYPE_BITS and dest.flags.c_contiguous and dest.flags.writeable
                    and dest.size == int(np.prod(shape))):
                # Straight into Zarr's chunk (a view of the same memory).
                mallat.decode(buf, threads=threads, out=dest.reshape(shape))
                return out
        image = mallat.decode(buf, threads=threads)
        if self.dtype is not None:
            image = image.astype(self.dtype, copy=False)
        return ndarray_copy(image, out)


register_codec(Jpeg2000)
