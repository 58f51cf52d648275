"""What the built package links: the CUDA runtime statically and NVRTC only when a Functor first
compiles (util/nvrtc_entry_points.cuh), so that a wheel runs on any machine with an NVIDIA
driver and NumPy (pyproject.toml builds it so)."""

import shutil
import subprocess
import sys

import pytest

import twobody
from twobody import _core


@pytest.mark.skipif(not sys.platform.startswith("linux") or shutil.which("ldd") is None, reason="reads ldd's output (Linux)")
def test_the_extension_needs_no_cuda_toolkit_library():
    out = subprocess.run(["ldd", _core.__file__], capture_output=True, text=True, check=True).stdout
    needed = [line.split()[0] for line in out.splitlines() if line.strip()]
    assert not [n for n in needed if n.startswith(("libcudart", "libnvrtc"))], out


def test_nvrtc_is_found_when_a_functor_first_compiles(tmp_path):
    # The toolkit's NVRTC (or the nvidia-cuda-nvrtc wheel's): the package was built with one.
    f = twobody.Functor("float", "return dist2(a, b);", cache_dir=str(tmp_path))
    f.check("float32", arch=80)
    assert f.compilations >= 1
