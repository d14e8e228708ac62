"""Installs the vprof package with the vprof binary of this repository.

At build time the binary is taken from, in this order: $VPROF_BIN; the
repository's build/vprof (a cmake build); else it is built here with cmake
into python/build-vprof (needs the build packages: scripts/setup-deps).
VPROF_NO_BINARY=1 installs the package alone; it then runs $VPROF_BIN or
`vprof` on PATH. Nothing is downloaded.
"""
import os
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def find_or_build():
    env = os.environ.get("VPROF_BIN")
    if env:
        if not os.access(env, os.X_OK):
            sys.exit(f"vprof: VPROF_BIN={env} is not an executable file")
        return env
    built = os.path.join(REPO, "build", "vprof")
    if os.access(built, os.X_OK):
        return built
    if not os.path.isfile(os.path.join(REPO, "CMakeLists.txt")):
        return None
    out = os.path.join(HERE, "build-vprof")
    print(f"vprof: no build/vprof in {REPO}: building it with cmake in {out}", file=sys.stderr)
    subprocess.check_call(["cmake", "-S", REPO, "-B", out, "-DCMAKE_BUILD_TYPE=Release"])
    subprocess.check_call(["cmake", "--build", out, "--target", "vprof", "-j", str(os.cpu_count() or 1)])
    return os.path.join(out, "vprof")


class BuildWithBinary(build_py):
    """build_py that copies the vprof binary into the package (vprof/bin)."""

    def run(self):
        super().run()
        if os.environ.get("VPROF_NO_BINARY"):
            return
        src = find_or_build()
        if src is None:
            print("vprof: no repository around this package: installing without the binary "
                  "(set VPROF_BIN or put vprof on PATH)", file=sys.stderr)
            return
        dest = os.path.join(self.build_lib, "vprof", "bin")
        os.makedirs(dest, exist_ok=True)
        shutil.copy2(src, os.path.join(dest, "vprof"))
        print(f"vprof: installing the binary {src}", file=sys.stderr)


setup(cmdclass={"build_py": BuildWithBinary})
