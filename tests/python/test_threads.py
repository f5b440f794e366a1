"""Many Python threads coding at once: the results are those of one thread at
a time, and the GIL is released while the codec works."""

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import mallat
from conftest import assert_gil_released, random_image


def test_eight_threads_at_once_give_the_sequential_results():
    images = [random_image((48 + 8 * i, 64, 1 + i % 4), np.uint8 if i % 2 else np.uint16, seed=i)
              for i in range(8)]
    settings = [{}, {"bpp": 2}, {"jp2": True}, {"psnr": 40}, {"tile": 32}, {"levels": 2}, {"rate": 5},
                {"lossless": False}]
    expected = [mallat.encode(img, threads=1, **s) for img, s in zip(images, settings)]
    expected_decoded = [mallat.decode(d, threads=1) for d in expected]
    barrier = threading.Barrier(8)

    def work(i):
        barrier.wait()  # all eight start together
        results = []
        for _ in range(3):
            data = mallat.encode(images[i], threads=2, **settings[i])
            results.append((data, mallat.decode(data, threads=2)))
        return results

    with ThreadPoolExecutor(max_workers=8) as pool:
        outcomes = list(pool.map(work, range(8)))
    for i, results in enumerate(outcomes):
        for data, decoded in results:
            assert data == expected[i], f"image {i}: the bytes differ from the sequential encode"
            np.testing.assert_array_equal(decoded, expected_decoded[i])


def test_the_gil_is_released_while_coding():
    image = random_image((768, 768, 3), np.uint8, seed=1)
    assert_gil_released(lambda: mallat.encode(image, threads=1))
