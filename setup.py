"""Builds the compiled module fdp._fdp with the project's CMake for `pip install .`.

The pure-Python files come from python/fdp/ (pyproject.toml); the extension
is the CMake target _fdp (python/CMakeLists.txt), configured with only the
library and the module (no tests, tools or benchmarks) in build-pip/ and
copied into the wheel. Nothing is downloaded: the dependencies are the
Debian packages of scripts/install-deps.sh.
"""

import os
import pathlib
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = ROOT / "build-pip"
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "2")
        subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                        "-DFDP_BUILD_TESTS=OFF", "-DFDP_BUILD_TOOLS=OFF",
                        "-DFDP_BUILD_BENCH=OFF", "-DFDP_BUILD_PYTHON=ON",
                        f"-DPython_EXECUTABLE={sys.executable}"], check=True)
        subprocess.run(["cmake", "--build", str(build), "--target", "_fdp", "-j", jobs],
                       check=True)
        built = next((build / "python" / "fdp").glob("_fdp*.so"))
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)


# setuptools' own scratch files go to build-pip/ too: ./build is the CMake
# build of scripts/setup.sh, and the source tree stays clean.
(ROOT / "build-pip").mkdir(exist_ok=True)
setup(ext_modules=[Extension("fdp._fdp", sources=[])], cmdclass={"build_ext": CMakeBuild},
      options={"build": {"build_base": "build-pip/setuptools"},
               "egg_info": {"egg_base": "build-pip"}})
