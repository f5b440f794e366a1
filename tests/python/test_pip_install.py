"""`pip install .` and `python3 -m build --wheel` (pyproject.toml, setup.py)
into fresh virtual environments made with --system-site-packages (numpy and
numcodecs come from Debian): the package installs from the source tree,
imports and codes, and the wheel installs and imports likewise. The extension is taken from this build (setup.py's
MALLAT_CMAKE_BUILD_DIR) rather than compiled again; setup.py's own
configure-and-build path is the same CMake target."""

import os
import pathlib
import subprocess
import sys

SOURCE = pathlib.Path(__file__).resolve().parents[2]
CHECK = ("import mallat, numcodecs, numpy; "
         "a = numpy.arange(600, dtype=numpy.uint16).reshape(20, 30); "
         "assert (mallat.decode(mallat.encode(a)) == a).all(); "
         "print(mallat.__file__); print(type(numcodecs.get_codec({'id': 'mallat_jpeg2000'})))")


def run(command, **kwargs):
    done = subprocess.run([str(c) for c in command], capture_output=True, text=True, **kwargs)
    assert done.returncode == 0, " ".join(map(str, command)) + "\n" + done.stdout + done.stderr
    return done.stdout


def fresh_venv(path):
    run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", path])
    return path / "bin" / "python"


def check_installed(python, venv, cwd, env):
    lines = run([python, "-c", CHECK], cwd=cwd, env=env).splitlines()
    assert lines[0].startswith(str(venv)), lines  # the venv's copy, not the build tree's
    assert "mallat.numcodecs.Jpeg2000" in lines[1]
    files = run([python, "-c", "import mallat, os; print(sorted(os.listdir(os.path.dirname(mallat.__file__))))"],
                cwd=cwd, env=env)
    for name in ("py.typed", "_mallat.pyi", "_version.py", "errors.py"):
        assert f"'{name}'" in files


def test_pip_install_and_wheel(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["MALLAT_CMAKE_BUILD_DIR"] = os.environ["MALLAT_BUILD_DIR"]

    # The venvs have no pip of their own (installing it is most of a venv's
    # making): the system's pip installs into them (pip --python).
    venv = tmp_path / "pip"
    python = fresh_venv(venv)
    run([sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-build-isolation", "--no-index",
         SOURCE], env=env, cwd=tmp_path)
    check_installed(python, venv, tmp_path, env)

    dist = tmp_path / "dist"
    run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", dist, SOURCE], env=env,
        cwd=tmp_path)
    wheels = list(dist.glob("mallat-*.whl"))
    assert len(wheels) == 1, wheels
    venv = tmp_path / "wheel"
    python = fresh_venv(venv)
    run([sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-index", wheels[0]], env=env,
        cwd=tmp_path)
    check_installed(python, venv, tmp_path, env)
