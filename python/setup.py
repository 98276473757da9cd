"""Build hook of the rooftime package: put librooftime.so and data/ inside the package.

`pip install ./python` (from the checkout) runs this in place. It takes librooftime.so from the
checkout's build tree (../build, as `make demo` and the README's cmake line make it; another with
ROOFTIME_BUILD=DIR), building it with CMake first when it is missing, and copies it and the
checkout's data/ into the installed package, which then needs neither the checkout nor any
environment variable. Nothing is compiled for Python itself: the package talks to the library
through ctypes.
"""
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def _library():
    build = os.environ.get("ROOFTIME_BUILD") or os.path.join(REPO, "build")
    lib = os.path.join(build, "librooftime.so")
    if not os.path.isfile(lib):
        if not os.path.isfile(os.path.join(REPO, "CMakeLists.txt")):
            raise SystemExit("rooftime: no %s and no checkout at %s to build it from" % (lib, REPO))
        print("rooftime: building librooftime.so in %s" % build)
        subprocess.check_call(["cmake", "-S", REPO, "-B", build, "-DCMAKE_BUILD_TYPE=Release"])
        subprocess.check_call(["cmake", "--build", build, "--target", "rooftime-shared", "-j",
                               str(os.cpu_count() or 2)])
    return lib


class BuildPy(build_py):
    def run(self):
        super().run()
        pkg = os.path.join(self.build_lib, "rooftime")
        os.makedirs(os.path.join(pkg, "_lib"), exist_ok=True)
        lib = _library()
        shutil.copy2(lib, os.path.join(pkg, "_lib", "librooftime.so"))
        # The CUPTI collector, beside it (rooftime.gpu.profile finds it there), when built.
        cupti = os.path.join(os.path.dirname(lib), "librooftime-cupti.so")
        if os.path.isfile(cupti):
            shutil.copy2(cupti, os.path.join(pkg, "_lib", "librooftime-cupti.so"))
        data = os.path.join(pkg, "data")
        if os.path.isdir(data):
            shutil.rmtree(data)
        shutil.copytree(os.path.join(REPO, "data"), data)


class BinaryDistribution(Distribution):
    """The wheel holds a shared library: tag it for this platform."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildPy}, distclass=BinaryDistribution)
