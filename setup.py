"""Builds mallat's Python package: the extension mallat._mallat through CMake
(the project's own build, target _mallat alone, no tests), the Python files
from python/mallat. The metadata is in pyproject.toml.

Environment:
  CMAKE_ARGS             more arguments for CMake's configure step (a compiler
                         launcher such as -DCMAKE_CXX_COMPILER_LAUNCHER=ccache,
                         -DMALLAT_CUDA=OFF)
  CMAKE_BUILD_PARALLEL_LEVEL  build jobs (default: the machine's cores)
  MALLAT_CMAKE_BUILD_DIR a CMake build folder of this source, already
                         configured with the Python module: its _mallat target
                         is brought up to date and its module taken, instead of
                         configuring a build of its own
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def project_version():
    text = (ROOT / "CMakeLists.txt").read_text()
    return re.search(r"project\(mallat VERSION ([0-9.]+)", text).group(1)


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    """Configures and builds the _mallat target, then copies the module (and
    the _version.py CMake writes beside it) to where setuptools packs it."""

    def build_extension(self, ext):
        given = os.environ.get("MALLAT_CMAKE_BUILD_DIR")
        if given:
            build = Path(given).resolve()
            if not (build / "CMakeCache.txt").is_file():
                sys.exit(f"MALLAT_CMAKE_BUILD_DIR={given} is not a configured CMake build folder")
        else:
            build = Path(self.build_temp).resolve() / "cmake"
            build.mkdir(parents=True, exist_ok=True)
            configure = ["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                         "-DMALLAT_BUILD_TESTS=OFF", "-DMALLAT_PYTHON=ON",
                         f"-DPython_EXECUTABLE={sys.executable}"]
            configure += shlex.split(os.environ.get("CMAKE_ARGS", ""))
            subprocess.run(configure, check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.run(["cmake", "--build", str(build), "--target", "_mallat", "-j", jobs], check=True)

        built = build / "python" / "mallat"
        module = built / Path(self.get_ext_filename(ext.name)).name
        if not module.is_file():
            found = ", ".join(p.name for p in built.glob("_mallat*")) or "none"
            sys.exit(f"{module} was not built (modules there: {found}); "
                     f"was {build} configured for {sys.executable}?")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(module, target)
        shutil.copyfile(built / "_version.py", target.parent / "_version.py")


setup(
    version=project_version(),
    packages=["mallat"],
    package_dir={"": "python"},
    package_data={"mallat": ["py.typed", "*.pyi"]},
    ext_modules=[CMakeExtension("mallat._mallat")],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
)
