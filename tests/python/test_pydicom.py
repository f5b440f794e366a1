"""mallat.pydicom: ds.pixel_array of JPEG 2000 and HTJ2K DICOM files that the
test writes itself (encapsulated frames, pydicom's own writer and reader),
against the numpy arrays they were made from; multi-frame, signed, colour."""

import io

import numpy as np
import pydicom
import pytest
from pydicom.dataset import Dataset, FileDataset, FileMetaDataset
from pydicom.encaps import encapsulate
from pydicom.uid import ExplicitVRLittleEndian, generate_uid

import mallat
import mallat.pydicom
from conftest import psnr, random_image

LOSSLESS, LOSSY = "1.2.840.10008.1.2.4.90", "1.2.840.10008.1.2.4.91"
HT_LOSSLESS, HT_RPCL, HT = "1.2.840.10008.1.2.4.201", "1.2.840.10008.1.2.4.202", "1.2.840.10008.1.2.4.203"

# The frames decode cleanly: their even-length padding is not taken for data after EOC.
pytestmark = pytest.mark.filterwarnings("error::mallat.errors.DecodeWarning")


def dicom_file(frames, transfer_syntax, bits_stored, photometric, **encode_options):
    """A DICOM file of `frames` (each (rows, columns) or (rows, columns, 3)),
    every frame a JPEG 2000 codestream, written and read back by pydicom."""
    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID = "1.2.840.10008.5.1.4.1.1.7"  # Secondary Capture
    meta.MediaStorageSOPInstanceUID = generate_uid()
    meta.TransferSyntaxUID = transfer_syntax
    meta.ImplementationClassUID = generate_uid()
    ds = FileDataset("", Dataset(), file_meta=meta, preamble=b"\0" * 128)
    ds.is_little_endian, ds.is_implicit_VR = True, False
    ds.SOPClassUID, ds.SOPInstanceUID = meta.MediaStorageSOPClassUID, meta.MediaStorageSOPInstanceUID
    first = frames[0]
    ds.Rows, ds.Columns = first.shape[:2]
    ds.SamplesPerPixel = 1 if first.ndim == 2 else first.shape[2]
    ds.PhotometricInterpretation = photometric
    if ds.SamplesPerPixel > 1:
        ds.PlanarConfiguration = 0
    ds.BitsAllocated = first.itemsize * 8
    ds.BitsStored = bits_stored
    ds.HighBit = bits_stored - 1
    ds.PixelRepresentation = 1 if first.dtype.kind == "i" else 0
    if len(frames) > 1:
        ds.NumberOfFrames = len(frames)
    ds.PixelData = encapsulate([mallat.encode(f, bits=bits_stored, **encode_options) for f in frames])
    ds["PixelData"].VR = "OB"
    ds["PixelData"].is_undefined_length = True
    out = io.BytesIO()
    ds.save_as(out, write_like_original=False)
    return pydicom.dcmread(io.BytesIO(out.getvalue()))


@pytest.mark.parametrize("transfer_syntax, options", [(LOSSLESS, {}), (HT_LOSSLESS, {"ht": True}),
                                                      (HT_RPCL, {"ht": True})])
def test_lossless_multi_frame_grey(transfer_syntax, options):
    frames = [random_image((40, 56), np.uint16, seed=s, bits=12) for s in range(3)]
    ds = dicom_file(frames, transfer_syntax, 12, "MONOCHROME2", **options)
    assert ds.file_meta.TransferSyntaxUID == transfer_syntax
    pixels = ds.pixel_array
    assert pixels.shape == (3, 40, 56) and pixels.dtype == np.uint16
    np.testing.assert_array_equal(pixels, np.stack(frames))


def test_signed_single_frame():
    frame = random_image((33, 47), np.int16, seed=4, bits=16)
    ds = dicom_file([frame], LOSSLESS, 16, "MONOCHROME2")
    assert ds.pixel_array.dtype == np.int16
    np.testing.assert_array_equal(ds.pixel_array, frame)


def test_colour_comes_out_rgb():
    frames = [random_image((30, 40, 3), np.uint8, seed=s) for s in (5, 6)]
    ds = dicom_file(frames, LOSSLESS, 8, "YBR_RCT")
    np.testing.assert_array_equal(ds.pixel_array, np.stack(frames))
    assert ds.PhotometricInterpretation == "RGB"


@pytest.mark.parametrize("transfer_syntax, options", [(LOSSY, {"psnr": 50}), (HT, {"psnr": 50, "ht": True})])
def test_lossy_frames(transfer_syntax, options):
    frames = [random_image((64, 64), np.uint16, seed=s, bits=12) for s in (7, 8)]
    ds = dicom_file(frames, transfer_syntax, 12, "MONOCHROME2", **options)
    pixels = ds.pixel_array
    for got, frame in zip(pixels, frames):
        np.testing.assert_array_equal(got, mallat.decode(mallat.encode(frame, bits=12, **options)))
        assert 45 < psnr(got, frame, 4095) < 70


def test_handler_is_first_and_named():
    assert pydicom.config.pixel_data_handlers[0] is mallat.pydicom
    frame = random_image((16, 16), np.uint8, seed=9)
    ds = dicom_file([frame], LOSSLESS, 8, "MONOCHROME2")
    ds.convert_pixel_data("mallat")
    np.testing.assert_array_equal(ds.pixel_array, frame)
    assert not mallat.pydicom.supports_transfer_syntax(ExplicitVRLittleEndian)
