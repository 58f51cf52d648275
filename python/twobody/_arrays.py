"""Arrays in and out: which library an array comes from, its checks, and results in that library.

Point sets go to the compiled core as they are (NumPy through the buffer protocol, CuPy, PyTorch
and JAX through DLPack, zero copies); the core gathers rows into columns where it has to.
Small results (counts, histograms, per-point sums) come back from the core as NumPy arrays and
are handed to the caller's library and device here; large device results (join pairs) stay on
the GPU and travel by DLPack.
"""

from __future__ import annotations

import numpy as np


def library_of(x) -> str:
    """'numpy', 'cupy', 'torch', 'jax' or 'other' (array-likes such as lists become NumPy)."""
    root = type(x).__module__.split(".")[0]
    if root in ("numpy", "cupy", "torch"):
        return root
    if root in ("jax", "jaxlib"):
        return "jax"
    return "other"


def as_points(x, name: str):
    """An (n, D) array of points (float32/float64; float16/bfloat16 for the high-dimensional
    statistics), in its own library (1-D arrays are (n, 1))."""
    if x is None:
        raise TypeError(f"twobody: {name} is None; pass an (n, D) array of points")
    lib = library_of(x)
    if lib == "other":
        x = np.asarray(x)
        lib = "numpy"
    if lib == "numpy" and x.ndim == 0:
        raise TypeError(f"twobody: {name} is a single number, not an (n, D) array of points"
                        + ("; the second positional argument is a second point set: give r=, bins=, eps= and the "
                           "other options by keyword" if name == "points_b" else ""))
    if lib == "numpy" and x.dtype.kind == "f" and not x.dtype.isnative:
        raise TypeError(f"twobody: {name} holds {x.dtype.str} (byte order not this machine's); convert with "
                        f"{name}.astype({name}.dtype.newbyteorder('='))")
    if lib == "numpy" and x.dtype not in (np.float32, np.float64, np.float16):
        if x.dtype.kind in "iub":
            raise TypeError(f"twobody: {name} holds {x.dtype}; coordinates must be float32, float64 or float16 "
                            "(convert with .astype(numpy.float64))")
        raise TypeError(f"twobody: {name} holds {x.dtype}; coordinates must be float32, float64 or float16")
    if x.ndim == 1:
        x = x.reshape(-1, 1)
    if x.ndim != 2:
        raise ValueError(f"twobody: {name} must be an (n, D) array of points, not {x.ndim}-dimensional")
    if lib == "torch" and x.requires_grad:
        x = x.detach()
    return x


def as_weights(w, points, name: str):
    """Weights as a contiguous 1-D array of the points' dtype in the points' library."""
    if w is None:
        return None
    lib = library_of(points)
    if lib == "numpy":
        w = np.ascontiguousarray(w, dtype=points.dtype)
    elif lib == "torch":
        w = w.detach().to(dtype=points.dtype).contiguous()
    elif lib == "cupy":
        import cupy

        w = cupy.ascontiguousarray(w, dtype=points.dtype)
    if w.ndim != 1 or w.shape[0] != points.shape[0]:
        raise ValueError(f"twobody: {name} must be a 1-D array of one weight per point ({points.shape[0]}), "
                         f"not of shape {tuple(w.shape)}")
    return w


def any_nan(x) -> bool:
    """True when the array (of any supported library) holds a NaN."""
    lib = library_of(x)
    if lib == "numpy":
        return bool(np.isnan(x).any())
    if lib == "cupy":
        import cupy

        return bool(cupy.isnan(x).any())
    if lib == "torch":
        import torch

        return bool(torch.isnan(x).any())
    if lib == "jax":
        import jax.numpy as jnp

        return bool(jnp.isnan(x).any())
    return bool(np.isnan(np.asarray(x)).any())


def nan_rows(x) -> int:
    """How many points (rows) of an (n, D) array have a NaN coordinate."""
    lib = library_of(x)
    if lib == "numpy":
        return int(np.isnan(x).any(axis=1).sum())
    if lib == "cupy":
        import cupy

        return int(cupy.isnan(x).any(axis=1).sum())
    if lib == "torch":
        import torch

        return int(torch.isnan(x).any(dim=1).sum())
    if lib == "jax":
        import jax.numpy as jnp

        return int(jnp.isnan(x).any(axis=1).sum())
    return int(np.isnan(np.asarray(x)).any(axis=1).sum())


def on_device(x) -> bool:
    """True for arrays in GPU memory."""
    lib = library_of(x)
    if lib == "cupy":
        return True
    if lib == "torch":
        return bool(x.is_cuda)
    if lib == "jax":
        return any(d.platform == "gpu" for d in x.devices())
    return False


def stream_handle(stream) -> int:
    """A CUDA stream as the integer the core takes: None (legacy default), an int, a CuPy stream
    (.ptr) or a PyTorch stream (.cuda_stream)."""
    if stream is None:
        return 0
    if isinstance(stream, int):
        return stream
    for attr in ("ptr", "cuda_stream"):
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    raise TypeError("twobody: stream must be None, an int handle, a CuPy stream or a PyTorch stream")


def to_numpy(x) -> np.ndarray:
    """Any array of a supported library as a NumPy array (a copy to the host for device arrays)."""
    lib = library_of(x)
    if lib == "cupy":
        return x.get()
    if lib == "torch":
        return x.detach().cpu().numpy()
    return np.asarray(x)


def column_range(x):
    """(min, max) of each column as NumPy arrays, computed by the array's own library."""
    if x.shape[0] == 0:
        return np.zeros(x.shape[1]), np.zeros(x.shape[1])
    if library_of(x) == "torch":
        return to_numpy(x.amin(dim=0)), to_numpy(x.amax(dim=0))
    return to_numpy(x.min(axis=0)), to_numpy(x.max(axis=0))


def dtype_name(x) -> str:
    """The dtype of an array of any supported library, as a string ('float32', 'bfloat16', ...)."""
    return str(x.dtype).rsplit(".", 1)[-1]


def like(result: np.ndarray, x):
    """A small NumPy result as an array of x's library on x's device (JAX gets NumPy for
    integer results, which it would narrow to 32 bits without x64)."""
    lib = library_of(x)
    if lib == "cupy":
        import cupy

        with x.device:
            return cupy.asarray(result)
    if lib == "torch":
        import torch

        if result.dtype == np.uint64:
            result = result.astype(np.int64)  # counts < 2^63; torch's uint64 has few operations
        return torch.from_numpy(np.ascontiguousarray(result)).to(x.device)
    if lib == "jax" and result.dtype.kind == "f":
        import jax

        return jax.device_put(result, next(iter(x.devices())))
    return result


def from_device(result, x, indices: bool = True):
    """A device result of the core (DLPack-capable) as an array of x's library (``indices``:
    an index array, which PyTorch gets as int64)."""
    lib = library_of(x)
    if lib == "cupy":
        import cupy

        return cupy.from_dlpack(result)
    if lib == "torch":
        import torch

        t = torch.from_dlpack(result)
        return t.to(torch.int64) if indices else t  # torch's uint32 has few operations
    if lib == "jax":
        import jax.dlpack

        # The core hands over a DLPack capsule, which JAX takes only behind the two methods.
        device = next(iter(x.devices())).id
        return jax.dlpack.from_dlpack(_CudaCapsule(result, device))
    return np.asarray(result)


class _CudaCapsule:
    """A DLPack capsule of CUDA memory behind __dlpack__ / __dlpack_device__ (what JAX's
    from_dlpack accepts; CuPy and PyTorch take the capsule itself)."""

    def __init__(self, capsule, device: int):
        self._capsule, self._device = capsule, device

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        return self._capsule  # the core's work on it is complete when the call returns

    def __dlpack_device__(self):
        return (2, self._device)  # kDLCUDA
