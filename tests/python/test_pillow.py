"""mallat.pillow: Image.open and Image.save of JPEG 2000 through mallat, held
to Pillow's own JPEG 2000 plugin (OpenJPEG) on the same files, both those
mallat writes and those OpenJPEG writes."""

import io

import numpy as np
import pytest
from PIL import Image, Jpeg2KImagePlugin

import mallat
import mallat.pillow
from conftest import random_image

IMAGES = {
    "L": random_image((61, 80), np.uint8, seed=1),
    "I;16": random_image((48, 50), np.uint16, seed=2),
    "RGB": random_image((70, 90, 3), np.uint8, seed=3),
    "RGBA": random_image((40, 52, 4), np.uint8, seed=4),
    "LA": random_image((33, 47, 2), np.uint8, seed=5),
}


def pillow_image(mode):
    return Image.fromarray(IMAGES[mode], mode)


def openjpeg_read(data, reduce=0):
    """Pillow's own plugin's decode of the same bytes."""
    im = Jpeg2KImagePlugin.Jpeg2KImageFile(io.BytesIO(data))
    im.reduce = reduce
    im.load()
    return np.asarray(im)


def openjpeg_write(im, name, **options):
    """Pillow's own plugin's encode (as Image.save calls it)."""
    fp = io.BytesIO()
    im.encoderinfo = options
    im.encoderconfig = ()
    Jpeg2KImagePlugin._save(im, fp, name)
    return fp.getvalue()


def assert_decoded_alike(ours, openjpeg, irreversible):
    """Equal, except that the 9/7 wavelet's floating-point synthesis may
    round a few samples the other way (15444-4's tolerance for it)."""
    if not irreversible:
        np.testing.assert_array_equal(ours, openjpeg)
        return
    difference = np.abs(ours.astype(np.int64) - openjpeg)
    assert ours.shape == openjpeg.shape and difference.max() <= 1


def save(im, name, **options):
    """Image.save to a file object named `name` (the suffix picks the kind)."""
    fp = io.BytesIO()
    fp.name = name
    im.save(fp, **options)
    return fp.getvalue()


@pytest.mark.parametrize("mode", list(IMAGES))
@pytest.mark.parametrize("name", ["a.jp2", "a.j2k", "a.jph"])
def test_lossless_round_trip_and_openjpeg_reads_it_alike(mode, name):
    if mode == "LA" and name == "a.j2k":
        pytest.skip("OpenJPEG's plugin reads two components of a codestream as grey alone")
    data = save(pillow_image(mode), name)
    facts = mallat.info(data)
    assert facts["container"] == ("j2k" if name.endswith(".j2k") else "jp2")
    assert facts["ht"] == name.endswith(".jph") and facts["reversible"]
    im = Image.open(io.BytesIO(data))
    assert isinstance(im, mallat.pillow.MallatJpeg2000ImageFile)
    assert (im.format, im.mode, im.size) == ("JPEG2000", mode, pillow_image(mode).size)
    np.testing.assert_array_equal(np.asarray(im), IMAGES[mode])
    if not name.endswith(".jph"):  # Debian's OpenJPEG 2.5 reads no HT code-blocks
        np.testing.assert_array_equal(openjpeg_read(data), IMAGES[mode])


@pytest.mark.parametrize("options", [{}, {"irreversible": True}, {"quality_layers": [40, 10]},
                                     {"irreversible": True, "quality_mode": "dB", "quality_layers": [30, 38]},
                                     {"num_resolutions": 3, "tile_size": (32, 24)}])
@pytest.mark.parametrize("mode", ["L", "RGB", "I;16"])
def test_openjpeg_files_open_as_openjpeg_decodes_them(mode, options):
    data = openjpeg_write(pillow_image(mode), "a.jp2", **options)
    im = Image.open(io.BytesIO(data))
    assert isinstance(im, mallat.pillow.MallatJpeg2000ImageFile)
    assert_decoded_alike(np.asarray(im), openjpeg_read(data), options.get("irreversible"))
    assert_decoded_alike(np.asarray(Image.open(io.BytesIO(data)).reduce(2)), openjpeg_read(data, 1),
                         options.get("irreversible"))


def test_save_options_are_pillows():
    im = pillow_image("RGB")
    facts = mallat.info(save(im, "a.jp2", irreversible=True, quality_mode="dB", quality_layers=[30, 40]))
    assert (facts["reversible"], facts["layers"]) == (False, 2)
    facts = mallat.info(save(im, "a.jp2", quality_layers=[20, 5]))
    assert (facts["reversible"], facts["layers"]) == (True, 2)
    facts = mallat.info(save(im, "a.jp2", num_resolutions=3, tile_size=(32, 16), no_jp2=True))
    assert (facts["levels"], facts["tile_size"], facts["container"]) == (2, (16, 32), "j2k")
    lossy = save(im, "a.jp2", quality_layers=[20])
    assert len(lossy) < len(save(im, "a.jp2"))
    np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(lossy))), openjpeg_read(lossy))
    with pytest.raises(ValueError, match="quality_layers"):
        save(im, "a.jp2", quality_layers="high")
    with pytest.raises(OSError, match="mode P"):
        save(im.convert("P"), "a.jp2")


def test_reduce_and_draft_decode_fewer_levels():
    data = save(pillow_image("RGB"), "a.jp2")
    for levels in (1, 2):
        expected = openjpeg_read(data, levels)
        np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(data)).reduce(1 << levels)), expected)
        im = Image.open(io.BytesIO(data))
        im.reduce = levels  # as Pillow's plugin takes it, applied by load()
        im.load()
        np.testing.assert_array_equal(np.asarray(im), expected)
    im = Image.open(io.BytesIO(data))
    mode, box = im.draft("RGB", (22, 17))
    assert im.size == (23, 18) and mode == "RGB"
    np.testing.assert_array_equal(np.asarray(im), openjpeg_read(data, 2))
    im = Image.open(io.BytesIO(data))
    im.thumbnail((30, 30))
    assert max(im.size) == 30


def test_twelve_bit_grey_is_shifted_as_pillow_does():
    image = random_image((20, 30), np.uint16, seed=6, bits=12)
    data = mallat.encode(image, bits=12, jp2=True)
    im = Image.open(io.BytesIO(data))
    assert im.mode == "I;16"
    np.testing.assert_array_equal(np.asarray(im), openjpeg_read(data))
