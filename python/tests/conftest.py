"""Test setup: the package from python/ (this tree), libnnfx.so from $NNFX_LIB
or the build tree, the nnfx command from $NNFX_EXE or beside the library."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))


@pytest.fixture
def data():
    return lambda *p: os.path.join(ROOT, "tests", "data", *p)


@pytest.fixture
def exe():
    import nnfx.tools
    return nnfx.tools.executable()
