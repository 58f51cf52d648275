"""twobody.Functor: a pair function written as CUDA C++ source, compiled at run time with NVRTC
into the library's own kernels (twobody/runtime_program.cuh)."""

from __future__ import annotations

import ctypes
import functools
import keyword
import os
from pathlib import Path
from typing import Mapping, Optional

from . import _core

_RESULTS = ("float", "double", "bool")


def _library_include() -> str:
    """The library headers the run-time compiler includes: the package's copy (wheels), else ""
    for the core's default (TWOBODY_INCLUDE_DIR, else the source tree it was built from)."""
    shipped = Path(__file__).resolve().parent / "include"
    return str(shipped) if (shipped / "twobody" / "runtime_functor.cuh").exists() else ""


@functools.lru_cache(maxsize=None)
def _cuda_from_wheels() -> str:
    """The root of the NVIDIA CUDA 13 wheels (nvidia/cu13: NVRTC from nvidia-cuda-nvrtc, headers
    from nvidia-cuda-runtime and nvidia-cuda-cccl; ``pip install twobody[functors]``) where they
    are installed and CUDA_HOME / CUDA_PATH name no toolkit, with their NVRTC loaded for the core
    to find; else "" (the core takes a toolkit's NVRTC and headers). Looked up once per process:
    the NVRTC loaded first is the one the core keeps."""
    if os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH"):
        return ""
    try:
        import nvidia  # the wheels' namespace package
    except ImportError:
        return ""
    for base in getattr(nvidia, "__path__", []):
        root = Path(base) / "cu13"
        nvrtc = root / "lib" / "libnvrtc.so.13"
        if nvrtc.exists() and (root / "include" / "cuda_runtime.h").exists() and (root / "include" / "cccl").is_dir():
            # NVRTC's builtins first: NVRTC loads them by name, which would otherwise find a toolkit's.
            for builtins in sorted((root / "lib").glob("libnvrtc-builtins.so.*")):
                ctypes.CDLL(str(builtins), mode=ctypes.RTLD_GLOBAL)
            ctypes.CDLL(str(nvrtc), mode=ctypes.RTLD_GLOBAL)
            return str(root)
    return ""


def _value_type(dtype: str) -> str:
    """The C++ coordinate type of points of ``dtype``."""
    types = {"float32": "float", "float64": "double"}
    if dtype not in types:
        raise ValueError("twobody: dtype must be 'float32' or 'float64'")
    return types[dtype]


class Functor:
    """A pair function ``f(a, b)`` written as the body of a CUDA C++ function, compiled at run
    time (NVRTC, part of the CUDA toolkit) and run through the same kernels, output policies and
    cost model as the library's own functors.

    Parameters
    ----------
    result : {"float", "double", "bool"}
        The C++ type the body returns: "float"/"double" for values (``pair_sum``, ``histogram``),
        "bool" for predicates (``count_pairs``).
    body : str
        Statements of ``result operator()(point<T, 3> const& a, point<T, 3> const& b) const``.
        In scope: ``a.x[0..2]`` and ``b.x[0..2]`` (points of 1 or 2 coordinates get zeros for the
        others), ``T`` (float or double: the points' dtype), ``D`` (3), every parameter by name
        (a ``T const``), the CUDA math functions (``expf``, ``sqrtf``, ...) and the helpers
        ``dist2(a, b)``, ``dist(a, b)`` and ``dot(a, b)``.
    params : mapping of str to float, optional
        Named parameters (at most 16) and their values; ``with_params`` changes the values without
        compiling again.
    name : str
        The file name compile errors give the body.
    preamble : str
        Device code placed before the function (helper ``__device__`` functions, constants).
    cache_dir : str, optional
        Where compiled kernels are kept between processes: default ``TWOBODY_CACHE_DIR``, else
        ``$XDG_CACHE_HOME/twobody``, else ``~/.cache/twobody``; ``""`` keeps none.

    Functors run on the GPU only. The first call of each statistic compiles its kernels (one to
    a few seconds, once per source, GPU architecture and library version; later processes load
    them from the cache). A body that does not compile raises ``twobody.Error`` with the body,
    numbered, and the compiler's messages.

    Example::

        gauss = twobody.Functor("float", "return expf(-dist2(a, b) / (2 * h * h));", {"h": 0.5})
        total = twobody.pair_sum(x, functor=gauss)
    """

    def __init__(self, result: str, body: str, params: Optional[Mapping[str, float]] = None, *,
                 name: str = "functor", preamble: str = "", cache_dir: Optional[str] = None):
        if result not in _RESULTS:
            raise ValueError(f"twobody: a Functor returns one of {_RESULTS}, not {result!r}")
        if not isinstance(body, str) or not body.strip():
            raise ValueError("twobody: the Functor's body is the C++ statements of the function (a non-empty str)")
        params = dict(params or {})
        for p in params:
            if not isinstance(p, str) or not p.isidentifier() or keyword.iskeyword(p):
                raise ValueError(f"twobody: parameter name {p!r} is not an identifier")
        self.result = result
        self.body = body
        self.params = {k: float(v) for k, v in params.items()}
        self.name = name
        self._program = _core.Program(result, body, list(self.params), name, preamble, _library_include(),
                                      "default" if cache_dir is None else str(cache_dir), _cuda_from_wheels())

    def with_params(self, **values: float) -> "Functor":
        """The same compiled function with other parameter values (no new compilation)."""
        unknown = set(values) - set(self.params)
        if unknown:
            raise ValueError(f"twobody: the Functor has no parameter(s) {sorted(unknown)}; it has {sorted(self.params)}")
        other = object.__new__(Functor)
        other.__dict__.update(self.__dict__)
        other.params = {**self.params, **{k: float(v) for k, v in values.items()}}
        return other

    def check(self, dtype: str = "float32", arch: int = 90) -> None:
        """Compiles the function for points of ``dtype`` and compute capability ``arch`` without
        running it (no GPU needed); raises ``twobody.Error`` when it does not compile."""
        self._program.check(_value_type(dtype), 3, int(arch))

    def source(self, dtype: str = "float32") -> str:
        """The C++ translation unit the run-time compiler sees for points of ``dtype``."""
        return self._program.source_text(_value_type(dtype), 3)

    @property
    def compilations(self) -> int:
        """Compilations run so far in this process (kernels loaded from the disk cache do not count)."""
        return self._program.compilations

    def _values(self):
        return list(self.params.values())

    def __repr__(self) -> str:
        return f"twobody.Functor({self.result!r}, {self.body!r}, {self.params!r})"
