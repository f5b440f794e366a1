"""Pillow reads and writes JPEG 2000 through mallat: ``import mallat.pillow``
replaces Pillow's own JPEG 2000 plugin (OpenJPEG) for ``Image.open`` and
``Image.save`` of .jp2, .j2k, .j2c, .jpc, .jpf, .jpx and .jph (HTJ2K) files.

    import mallat.pillow
    from PIL import Image
    im = Image.open("photo.jp2")                  # format "JPEG2000", decoded by mallat
    im.reduce(4)                                  # decodes two resolution levels fewer (2^2 = 4)
    im.save("copy.jp2", quality_mode="dB", quality_layers=[35, 45])

Images are as Pillow's plugin gives them: one component is "L" (up to 8 bits)
or "I;16" (up to 16), two "LA", three "RGB", four "RGBA"; samples of another
precision are shifted to the mode's (12-bit grey is "I;16" times 16, 12-bit
RGB is "RGB" divided by 16), signed samples offset by half their range.

Reading: ``im.reduce = n`` (before loading, as Pillow's plugin),
``im.reduce(2**n)`` and ``im.draft(mode, size)`` decode n resolution levels
fewer; ``im.layers = n`` the first n quality layers.

Saving, with Pillow's JPEG 2000 options: ``irreversible`` (the 9/7 wavelet;
default False: lossless, the 5/3), ``quality_mode`` ("rates": compression
ratios, or "dB": PSNR) with ``quality_layers`` (one target per layer),
``num_resolutions``, ``tile_size`` (width, height), ``no_jp2`` (a raw
codestream; also for .j2k, .j2c and .jpc names); and mallat's ``ht`` (HT
code-blocks; default for .jph names).
"""

from __future__ import annotations


import numpy as np
from PIL import Image, ImageFile

import mallat

FORMAT = "JPEG2000"
EXTENSIONS = [".jp2", ".j2k", ".j2c", ".jpc", ".jpf", ".jpx", ".jph"]
_CODESTREAM = b"\xff\x4f\xff\x51"
_JP2 = b"\x00\x00\x00\x0cjP  \x0d\x0a\x87\x0a"
_MODES = {2: "LA", 3: "RGB", 4: "RGBA"}


def _accept(prefix):
    return prefix[:4] == _CODESTREAM or prefix[:12] == _JP2


def _mode(components, bits):
    if components == 1:
        return "L" if bits <= 8 else "I;16"
    if components in _MODES:
        return _MODES[components]
    raise SyntaxError(f"mallat.pillow: {components} components have no Pillow mode")


def _to_mode(array, mode, precision, signed):
    """The decoded samples shifted to the mode's 8 or 16 bits, as Pillow's
    plugin does (signed samples first offset to unsigned)."""
    target = 16 if mode == "I;16" else 8
    values = array.astype(np.int32)
    if signed:
        values += 1 << (precision - 1)
    shift = target - precision
    values = values << shift if shift > 0 else values >> -shift
    return values.astype(np.uint16 if target == 16 else np.uint8)


def _set_mode(image, mode):
    # Newer Pillow releases keep the mode in _mode behind a read-only
    # property (assigning `mode` raises there); older ones in `mode` itself.
    if isinstance(getattr(type(image), "mode", None), property):
        image._mode = mode
    else:
        image.mode = mode


class MallatJpeg2000ImageFile(ImageFile.ImageFile):
    format = FORMAT
    format_description = "JPEG 2000 (ISO/IEC 15444, mallat)"

    def _open(self):
        self._data = self.fp.read()
        try:
            facts = mallat.info(self._data)
        except mallat.Error as e:
            raise SyntaxError(f"not a JPEG 2000 file mallat reads: {e}") from None
        self._precision = facts["bits"][0]
        self._signed = facts["signed"][0]
        self._array = None
        components = facts["components"]
        if facts.get("jp2", {}).get("palette") or facts.get("jp2", {}).get("channel_roles"):
            # The JP2 header makes the channels (Annex I): decode now to see them.
            self._array = mallat.decode(self._data)
            components = 1 if self._array.ndim == 2 else self._array.shape[2]
            self._precision = max(self._precision, 8) if self._array.itemsize == 1 else self._precision
        _set_mode(self, _mode(components, self._precision))
        if facts["container"] == "jp2":
            self.custom_mimetype = "image/jp2"
        self._size = (facts["width"], facts["height"])
        self._levels = facts["levels"]
        self._reduce = 0
        self.layers = 0
        self.tile = [("mallat", (0, 0) + self._size, 0, None)]

    @property
    def reduce(self):
        # As Pillow's plugin: `im.reduce = n` sets resolution levels to drop,
        # `im.reduce(factor)` is Image.reduce (resolution levels where it can).
        return self._reduce or self._reduce_image

    @reduce.setter
    def reduce(self, value):
        self._reduce = value

    def _reduce_image(self, factor, box=None):
        """Image.reduce: a power of two of a whole image not loaded yet is
        decoded at that many resolution levels fewer (a new image, as
        Image.reduce returns); anything else is Image.reduce's."""
        levels = factor.bit_length() - 1 if isinstance(factor, int) and factor > 0 else -1
        if self.tile and box is None and self._array is None and 0 <= levels <= self._levels \
                and 1 << levels == factor:
            array = mallat.decode(self._data, reduce=self._reduce + levels, layers=self.layers or None)
            return Image.fromarray(_to_mode(array, self.mode, self._precision, self._signed), self.mode)
        return Image.Image.reduce(self, factor, box)

    def draft(self, mode, size):
        """Decode as many resolution levels fewer as leave the image at least
        `size` (as Pillow's JPEG plugin scales by 1/2, 1/4, 1/8)."""
        if not self.tile or self._array is not None or not size:
            return None
        width, height = self.size
        scale = int(min(width // size[0], height // size[1]))
        levels = min(max(scale, 1).bit_length() - 1, self._levels - self._reduce)
        if levels <= 0:
            return None
        self._reduce += levels
        scale = 1 << levels
        self._size = ((width + scale - 1) // scale, (height + scale - 1) // scale)
        self.tile = [("mallat", (0, 0) + self._size, 0, None)]
        return self.mode, (0, 0, width / scale, height / scale)

    def load(self):
        if self.tile:
            if self._array is None:
                array = mallat.decode(self._data, reduce=self._reduce, layers=self.layers or None)
            else:
                array = self._array
            array = _to_mode(array, self.mode, self._precision, self._signed)
            self.im = Image.fromarray(array, self.mode).im
            self._size = self.im.size
            self.tile = []
            self._data = self._array = None
        return Image.Image.load(self)


def _save(im, fp, filename):
    info = im.encoderinfo
    name = filename.decode() if isinstance(filename, bytes) else str(filename or "")
    suffix = name[name.rfind("."):].lower() if "." in name else ""
    if im.mode not in ("L", "I;16", "LA", "RGB", "RGBA"):
        raise OSError(f"cannot write mode {im.mode} as JPEG 2000")
    image = np.asarray(im)
    layers = info.get("quality_layers")
    if layers is not None and not (isinstance(layers, (list, tuple))
                                   and all(isinstance(q, (int, float)) for q in layers)):
        raise ValueError("quality_layers must be a sequence of numbers")
    irreversible = bool(info.get("irreversible", False))
    options = {"lossless": not irreversible, "jp2": not (info.get("no_jp2", False) or suffix in (".j2k", ".j2c",
                                                                                                 ".jpc")),
               "ht": bool(info.get("ht", suffix == ".jph"))}
    if layers:
        mode = info.get("quality_mode", "rates")
        if mode not in ("rates", "dB"):
            raise ValueError(f"quality_mode={mode!r} must be 'rates' or 'dB'")
        options["rate" if mode == "rates" else "psnr"] = list(layers)
    if info.get("num_resolutions"):
        options["levels"] = int(info["num_resolutions"]) - 1
    if info.get("tile_size"):
        width, height = info["tile_size"]
        options["tile"] = (height, width)
    fp.write(mallat.encode(image, **options))


Image.init()  # Pillow's plugins first, so that this one replaces its JPEG 2000 plugin
Image.register_open(FORMAT, MallatJpeg2000ImageFile, _accept)
Image.register_save(FORMAT, _save)
Image.register_extensions(FORMAT, EXTENSIONS)
Image.register_mime(FORMAT, "image/jp2")
