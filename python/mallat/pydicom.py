"""pydicom decodes JPEG 2000 and HTJ2K pixel data through mallat:
``import mallat.pydicom`` puts this handler first in
``pydicom.config.pixel_data_handlers`` (pydicom 2.x), so ``ds.pixel_array``
of these transfer syntaxes is decoded by mallat, every frame of a
multi-frame image in one batch (mallat.Engine.decode_batch); and
``ds.convert_pixel_data("mallat")`` names it.

    import pydicom
    import mallat.pydicom
    ds = pydicom.dcmread("ct.dcm")                # JPEG 2000 (lossless or not) or HTJ2K
    frames = ds.pixel_array

Transfer syntaxes: JPEG 2000 Image Compression (Lossless Only)
1.2.840.10008.1.2.4.90, JPEG 2000 Image Compression 1.2.840.10008.1.2.4.91,
HTJ2K (Lossless Only) 1.2.840.10008.1.2.4.201, HTJ2K (Lossless RPCL)
1.2.840.10008.1.2.4.202 and HTJ2K 1.2.840.10008.1.2.4.203. The samples are
returned as coded, in the dtype the dataset's Bits Allocated and Pixel
Representation give; a YBR_RCT or YBR_ICT image comes out as RGB (the
codestream's inverse component transform, G.2 and G.3, is applied), and the
dataset's Photometric Interpretation is changed to RGB accordingly.
Errors: mallat's (a CorruptDataError for a damaged frame).
"""

from __future__ import annotations

import numpy as np
import pydicom.config
from pydicom.encaps import generate_pixel_data_frame
from pydicom.pixel_data_handlers.util import pixel_dtype

import mallat

HANDLER_NAME = "mallat"
DEPENDENCIES = {"numpy": ("http://www.numpy.org/", "NumPy")}

# UID: (name, keyword), as DICOM PS3.6 Table A-1 lists them.
TRANSFER_SYNTAXES = {
    "1.2.840.10008.1.2.4.90": ("JPEG 2000 Image Compression (Lossless Only)", "JPEG2000Lossless"),
    "1.2.840.10008.1.2.4.91": ("JPEG 2000 Image Compression", "JPEG2000"),
    "1.2.840.10008.1.2.4.201": ("High-Throughput JPEG 2000 Image Compression (Lossless Only)",
                                "HTJ2KLossless"),
    "1.2.840.10008.1.2.4.202": ("High-Throughput JPEG 2000 with RPCL Options Image Compression (Lossless Only)",
                                "HTJ2KLosslessRPCL"),
    "1.2.840.10008.1.2.4.203": ("High-Throughput JPEG 2000 Image Compression", "HTJ2K"),
}
_COMPONENT_TRANSFORMED = ("YBR_RCT", "YBR_ICT")


def is_available() -> bool:
    return True


def supports_transfer_syntax(transfer_syntax: str) -> bool:
    return str(transfer_syntax) in TRANSFER_SYNTAXES


def needs_to_convert_to_RGB(ds) -> bool:
    return False


def should_change_PhotometricInterpretation_to_RGB(ds) -> bool:
    return ds.PhotometricInterpretation in _COMPONENT_TRANSFORMED


def get_pixeldata(ds) -> np.ndarray:
    """Every frame of (7FE0,0010) Pixel Data decoded, as one 1-D array in
    the dtype of the dataset's samples (pydicom reshapes it)."""
    frames = int(getattr(ds, "NumberOfFrames", 1) or 1)
    # PS3.5 A.4: each fragment is padded to an even length; a zero byte
    # after a codestream's EOC marker is that padding.
    data = [f[:-1] if f.endswith(b"\xff\xd9\x00") else f for f in generate_pixel_data_frame(ds.PixelData, frames)]
    decoded = mallat._default_engine(None).decode_batch(data)
    dtype = pixel_dtype(ds)
    shape = (int(ds.Rows), int(ds.Columns))
    samples = int(ds.SamplesPerPixel)
    for i, frame in enumerate(decoded):
        channels = 1 if frame.ndim == 2 else frame.shape[2]
        if frame.shape[:2] != shape or channels != samples:
            raise mallat.CorruptDataError(
                f"frame {i} decodes to {frame.shape[0]} x {frame.shape[1]} with {channels} components; "
                f"the dataset says {shape[0]} x {shape[1]} with {samples}")
    if should_change_PhotometricInterpretation_to_RGB(ds):
        ds.PhotometricInterpretation = "RGB"
    return np.concatenate([frame.astype(dtype, copy=False).ravel() for frame in decoded])


def _register():
    import sys
    # pydicom 2.x predates the HTJ2K transfer syntaxes: without them in its
    # dictionary it refuses to read or write such a file.
    from pydicom._uid_dict import UID_dictionary
    for uid, (name, keyword) in TRANSFER_SYNTAXES.items():
        UID_dictionary.setdefault(uid, (name, "Transfer Syntax", "", "", keyword))
    handler = sys.modules[__name__]
    handlers = pydicom.config.pixel_data_handlers
    if handler in handlers:
        handlers.remove(handler)
    handlers.insert(0, handler)
    pydicom.config.mallat_handler = handler  # ds.convert_pixel_data("mallat")


_register()
