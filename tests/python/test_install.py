"""cmake --install puts the package under the prefix where the interpreter
looks (lib/python3.X/dist-packages on Debian: /usr/local is on its path), and
it works from there alone: module, Python files and numcodecs entry point."""

import os
import subprocess
import sys


def test_installed_package_imports_and_codes(tmp_path):
    build = os.environ["MALLAT_BUILD_DIR"]
    run = subprocess.run([os.environ["CMAKE_COMMAND"], "--install", build, "--prefix", str(tmp_path)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    site = tmp_path / os.environ["MALLAT_PYTHON_INSTALL_DIR"]
    assert sorted(p.name for p in (site / "mallat").glob("*.py")) == [
        "__init__.py", "_version.py", "dask.py", "errors.py", "numcodecs.py", "pillow.py", "pydicom.py"]
    assert (site / "mallat" / "py.typed").is_file() and (site / "mallat" / "_mallat.pyi").is_file()
    script = ("import mallat, numcodecs, numpy; "
              "a = numpy.arange(600, dtype=numpy.uint16).reshape(20, 30); "
              "assert (mallat.decode(mallat.encode(a)) == a).all(); "
              "print(mallat.__file__); print(type(numcodecs.get_codec({'id': 'mallat_jpeg2000'})))")
    env = dict(os.environ, PYTHONPATH=str(site))
    check = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert check.returncode == 0, check.stderr
    assert check.stdout.splitlines()[0].startswith(str(site))
    assert "mallat.numcodecs.Jpeg2000" in check.stdout
