"""Shared settings of the package's tests: the vprof binary under test
($VPROF_BIN, set by ctest to the build's), the repository, ../shared."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.environ.get("VPROF_REPO") or os.path.dirname(os.path.dirname(HERE))
SHARED = os.environ.get("VPROF_SHARED") or os.path.join(REPO, "..", "shared")
HTA = os.path.join(SHARED, "fixtures", "real", "hta")
DATA = os.path.join(REPO, "tests", "data", "hta")

if os.environ.get("VPROF_PYTHON_INSTALLED") != "1":
    sys.path.insert(0, os.path.join(REPO, "python"))


@pytest.fixture(scope="session")
def vprof_bin():
    b = os.environ.get("VPROF_BIN") or os.path.join(REPO, "build", "vprof")
    if not os.access(b, os.X_OK):
        pytest.fail(f"no vprof binary at {b}: build it, or set VPROF_BIN")
    os.environ["VPROF_BIN"] = b
    return b
