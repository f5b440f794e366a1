"""mallat.encode / decode / info: round trips for every dtype and 1, 3 and 4
channels, the rate targets, the containers and decode's options."""

import numpy as np
import pytest

import mallat
from conftest import psnr, random_image

DTYPES = [np.uint8, np.int8, np.uint16, np.int16]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("channels", [1, 3, 4])
def test_lossless_round_trip(dtype, channels):
    shape = (37, 53) if channels == 1 else (37, 53, channels)
    image = random_image(shape, dtype, seed=channels)
    data = mallat.encode(image)
    assert data[:2] == b"\xff\x4f"  # SOC
    decoded = mallat.decode(data)
    assert decoded.dtype == image.dtype and decoded.shape == image.shape
    np.testing.assert_array_equal(decoded, image)
    facts = mallat.info(data)
    assert (facts["height"], facts["width"], facts["components"]) == (37, 53, channels)
    assert facts["bits"] == [np.iinfo(dtype).bits] * channels
    assert facts["signed"] == [np.iinfo(dtype).min < 0] * channels
    assert facts["reversible"] and facts["container"] == "j2k"


@pytest.mark.parametrize("dtype, bits", [(np.int32, 16), (np.int32, 11), (np.uint32, 16), (np.uint16, 12),
                                         (np.uint8, 1)])
def test_bits_below_the_dtype(dtype, bits):
    image = random_image((29, 31, 3), dtype, seed=bits, bits=bits)
    data = mallat.encode(image, bits=bits)
    assert mallat.info(data)["bits"] == [bits] * 3
    decoded = mallat.decode(data)
    np.testing.assert_array_equal(decoded, image)
    # The smallest dtype that holds `bits`.
    assert decoded.dtype.itemsize == (1 if bits <= 8 else 2)


def test_any_strides_and_any_buffer(tmp_path):
    image = random_image((40, 24, 3), np.uint16)
    view = np.ascontiguousarray(image.transpose(1, 0, 2))[::-1].transpose(1, 0, 2)  # negative strides
    data = mallat.encode(view)
    expected = np.array(view)
    path = tmp_path / "a.j2k"
    path.write_bytes(data)
    for source in (data, bytearray(data), memoryview(data), np.frombuffer(data, np.uint8), path, str(path)):
        np.testing.assert_array_equal(mallat.decode(source), expected)


def test_other_byte_orders():
    image = random_image((20, 30), np.uint16, seed=13)
    swapped = image.astype(">u2")
    np.testing.assert_array_equal(mallat.decode(mallat.encode(swapped)), image)
    with pytest.raises(ValueError, match="does not hold"):
        mallat.decode(mallat.encode(image), out=np.zeros((20, 30), ">u2"))


def test_jp2_container_round_trip_and_colour():
    image = random_image((33, 45, 4), np.uint8)
    data = mallat.encode(image, jp2=True)
    facts = mallat.info(data)
    assert facts["container"] == "jp2"
    assert facts["jp2"]["colour_space"] == "sRGB"
    assert facts["jp2"]["channel_roles"] == ["colour", "colour", "colour", "opacity"]
    np.testing.assert_array_equal(mallat.decode(data), image)


@pytest.mark.parametrize("lossless", [None, True, False])
def test_bpp_target_is_met_from_below(lossless):
    image = random_image((128, 96, 3), np.uint8, seed=5)
    data = mallat.encode(image, bpp=1.5, lossless=lossless)
    assert len(data) <= 1.5 * 128 * 96 / 8
    assert len(data) > 0.9 * 1.5 * 128 * 96 / 8
    # None and False: the irreversible 9/7 path; True: 5/3 cut at the target.
    assert mallat.info(data)["reversible"] == (lossless is True)
    decoded = mallat.decode(data)
    assert 15 < psnr(decoded, image, 255) < 60


def test_layers_of_a_rate_list_and_decoding_fewer():
    image = random_image((96, 96), np.uint8, seed=6)
    data = mallat.encode(image, rate=[40, 10, 1], lossless=True)  # the last layer lossless
    assert mallat.info(data)["layers"] == 3
    np.testing.assert_array_equal(mallat.decode(data), image)
    quality = [psnr(mallat.decode(data, layers=n), image, 255) for n in (1, 2)]
    assert quality[0] < quality[1] < float("inf")


def test_psnr_target():
    image = random_image((96, 128), np.uint16, seed=7, bits=16)
    data = mallat.encode(image, psnr=50)
    assert abs(psnr(mallat.decode(data), image, 65535) - 50) < 1.0


def test_tiles_and_levels():
    image = random_image((70, 90, 3), np.uint8, seed=8)
    data = mallat.encode(image, tile=(32, 48), levels=2)
    facts = mallat.info(data)
    assert facts["tile_size"] == (32, 48) and facts["tiles"] == 3 * 2 and facts["levels"] == 2
    np.testing.assert_array_equal(mallat.decode(data), image)
    assert mallat.info(mallat.encode(image, tile=16))["tiles"] == 5 * 6


@pytest.mark.parametrize("reduce", [0, 1, 2])
@pytest.mark.parametrize("options", [{}, {"tile": (16, 24)}, {"rate": 8}, {"tile": 32, "rate": 8, "levels": 3}])
def test_region_is_the_crop_of_the_whole_decode(reduce, options):
    image = random_image((61, 77, 3), np.uint8, seed=9)
    data = mallat.encode(image, **options)
    whole = mallat.decode(data, reduce=reduce)
    assert whole.shape[:2] == (-(-61 >> reduce), -(-77 >> reduce))
    y0, x0, y1, x1 = 5, 9, 50, 70
    region = mallat.decode(data, reduce=reduce, region=(y0, x0, y1, x1))
    s = 1 << reduce
    np.testing.assert_array_equal(region, whole[-(-y0 // s):-(-y1 // s), -(-x0 // s):-(-x1 // s)])


def test_components_choose_channels():
    image = random_image((20, 30, 4), np.int16, seed=10)
    data = mallat.encode(image)
    np.testing.assert_array_equal(mallat.decode(data, components=2), image[:, :, 2])
    np.testing.assert_array_equal(mallat.decode(data, components=[3, 0]), image[:, :, [3, 0]])
    np.testing.assert_array_equal(mallat.decode(data, components=[-1]), image[:, :, 3:])
    np.testing.assert_array_equal(mallat.decode(data, components=[1, -3, 1]), image[:, :, [1, 1, 1]])


@pytest.mark.parametrize("jp2", [False, True])
@pytest.mark.parametrize("lossy", [False, True])
def test_components_equal_those_of_a_whole_decode(jp2, lossy):
    # The decoder picks the components itself (under the colour transform,
    # 0..2 together); the channels must be those of a whole decode. A JP2
    # file of 4 channels has a cdef (alpha): that one decodes whole and picks.
    for channels in (3, 4):
        image = random_image((33, 47, channels), np.uint8, seed=12 + channels)
        data = mallat.encode(image, bpp=2, jp2=jp2) if lossy else mallat.encode(image, jp2=jp2)
        whole = mallat.decode(data)
        for chosen in ([0], [2, 0], [1, 1], [-1, 0], list(range(channels))):
            np.testing.assert_array_equal(mallat.decode(data, components=chosen), whole[:, :, chosen])
        np.testing.assert_array_equal(mallat.decode(data, components=1, reduce=1), mallat.decode(data, reduce=1)[:, :, 1])


def test_out_receives_the_samples():
    image = random_image((25, 35, 3), np.uint16, seed=11, bits=12)
    data = mallat.encode(image, bits=12)
    out = np.zeros((25, 35, 3), np.int32)
    assert mallat.decode(data, out=out) is out
    np.testing.assert_array_equal(out, image)
    # A strided view: only its samples change.
    big = np.zeros((25, 3, 70), np.uint16)
    view = big.transpose(0, 2, 1)[:, ::2]
    mallat.decode(data, out=view)
    np.testing.assert_array_equal(view, image)
    assert not big[:, :, 1::2].any()
    plane = np.empty((25, 35), np.uint16)
    mallat.decode(data, components=1, out=plane)
    np.testing.assert_array_equal(plane, image[:, :, 1])


def test_shared_images_lossless(testdata):
    for name in ("Bretagne1.ppm", "flower-rgb-planar-12.tif", "flower-minisblack-05.tif"):
        image = mallat.read_image(testdata / "images" / name)
        data = mallat.encode(image, bits=int(name.split("-")[-1][:2]) if name.endswith(".tif") else None)
        np.testing.assert_array_equal(mallat.decode(data), image)


def test_write_image_and_read_it_back(tmp_path):
    image = random_image((12, 19, 3), np.uint16, seed=12)
    mallat.write_image(tmp_path / "a.png", image)
    np.testing.assert_array_equal(mallat.read_image(tmp_path / "a.png"), image)


@pytest.mark.parametrize("dtype", DTYPES)
def test_ht_lossless_round_trip_and_rate(dtype):
    # HTJ2K (15444-15) code-blocks: every sample back, and a size target met
    # from below as with Part 1's.
    image = random_image((61, 47, 3), dtype, seed=7)
    data = mallat.encode(image, ht=True)
    np.testing.assert_array_equal(mallat.decode(data), image)
    smooth = (np.add.outer(np.arange(128), np.arange(96)) % 256).astype(np.uint8)
    lossy = mallat.encode(smooth, ht=True, bpp=1.0)
    assert len(lossy) <= 128 * 96 / 8
    assert psnr(smooth, mallat.decode(lossy), 255) > 30
