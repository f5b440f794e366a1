"""mallat.dask on a LocalCluster of two worker processes: image files to
JPEG 2000 and back, and a Dask array to Zarr with JPEG 2000 chunks. The
cluster is shut down at the end of the module."""

import logging
import pathlib
import shutil
import subprocess
import sys

import dask.array as da
import numpy as np
import pytest
import zarr
from distributed import Client, LocalCluster

import mallat
import mallat.dask
from conftest import random_image

# Debian's distributed 2022.12 with its tornado: not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore:make_current is deprecated:DeprecationWarning")


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=logging.ERROR) as cluster, Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def images(tmp_path_factory, testdata):
    folder = tmp_path_factory.mktemp("images")
    shutil.copy(testdata / "images" / "Bretagne1.ppm", folder)
    shutil.copy(testdata / "images" / "flower-rgb-contig-12.tif", folder)
    for i, (shape, dtype) in enumerate([((40, 50), np.uint8), ((33, 20, 3), np.uint16), ((16, 24, 4), np.uint8)]):
        mallat.write_image(folder / f"generated{i}.png", random_image(shape, dtype, seed=i))
    return sorted(folder.iterdir())


def test_encode_and_decode_files_on_the_cluster(client, images, tmp_path, monkeypatch):
    # The work goes to the cluster, never to threads of this process.
    monkeypatch.setattr(mallat.dask, "ThreadPoolExecutor", None)
    encoded = mallat.dask.encode_files(images, tmp_path / "jp2", client=client)
    assert [p.rsplit("/", 1)[1] for p in encoded] == [p.stem + ".jp2" for p in images]
    # The 12-bit TIFF keeps its precision: the codec read it, not numpy.
    with open(encoded[images.index(next(p for p in images if p.suffix == ".tif"))], "rb") as f:
        assert mallat.info(f.read())["bits"] == [12, 12, 12]
    decoded = mallat.dask.decode_files(encoded, tmp_path / "png", client=client)
    for source, target in zip(images, decoded):
        np.testing.assert_array_equal(mallat.read_image(target), mallat.read_image(source))


def test_lossy_files_and_the_codecs_errors(client, images, tmp_path):
    encoded = mallat.dask.encode_files(images[:2], tmp_path, client=client, jp2=False, bpp=1)
    for path in encoded:
        assert path.endswith(".j2k")
        with open(path, "rb") as f:
            facts = mallat.info(f.read())
        assert not facts["reversible"]
    (tmp_path / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n broken")
    with pytest.raises(mallat.Error, match="broken.png"):
        mallat.dask.encode_files([tmp_path / "broken.png"], tmp_path / "out", client=client)


def test_to_zarr_on_the_cluster(client, tmp_path):
    image = random_image((96, 80, 3), np.uint8, seed=9)
    array = da.from_array(image, chunks=(32, 40, 3))
    mallat.dask.to_zarr(array, str(tmp_path / "a.zarr"))
    np.testing.assert_array_equal(zarr.open(str(tmp_path / "a.zarr"), mode="r")[...], image)
    volume = da.from_array(np.stack([image[:, :, 0], image[:, :, 1]]), chunks=(1, 48, 80))
    mallat.dask.to_zarr(volume, str(tmp_path / "v.zarr"), psnr=45)
    assert zarr.open(str(tmp_path / "v.zarr"), mode="r").compressor.psnr == 45
    with pytest.raises(ValueError, match="chunk every axis before the last three by 1"):
        mallat.dask.to_zarr(da.zeros((2, 2, 8, 8), chunks=(2, 1, 8, 8), dtype=np.uint8), str(tmp_path / "b.zarr"))


def test_without_a_cluster_files_run_on_threads_here(images, tmp_path):
    encoded = mallat.dask.encode_files(images[2:], tmp_path, client=None)
    for source, target in zip(images[2:], encoded):
        with open(target, "rb") as f:
            np.testing.assert_array_equal(mallat.decode(f.read()), mallat.read_image(source))
    with pytest.raises(ValueError, match="would both be written"):
        mallat.dask.encode_files([images[0], images[0]], tmp_path)


EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "python" / "examples" / "dask_example.py"


def test_the_example_makes_its_images_and_checks_them(client, tmp_path):
    """docs/PYTHON.md's Dask example, on this module's cluster."""
    run = subprocess.run([sys.executable, EXAMPLE, "--out", tmp_path, client.scheduler.address],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "4 files encoded" in run.stdout and "equal the originals: True" in run.stdout
    assert len(list((tmp_path / "png").iterdir())) == 4


def test_the_example_fails_without_images(tmp_path):
    run = subprocess.run([sys.executable, EXAMPLE, "--images", tmp_path], capture_output=True, text=True)
    assert run.returncode == 1 and "no image files" in run.stderr
