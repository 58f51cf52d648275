"""Test data where the exact answer is unambiguous: integer coordinates (squared distances are
integers, exact in float32 and float64) and bin edges or radii checked to lie away from every
pair's value."""

import os

import numpy as np
import pytest

# JAX takes 75% of the GPU's memory when it starts unless told not to; the GPU tests share the
# GPU between JAX, CuPy, PyTorch and the library.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")


def integer_points(n, d=3, hi=32, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    return rng.integers(0, hi, size=(n, d)).astype(dtype)


def assert_edges_clear(values, edges, gap=1e-4):
    """Precondition of an exact comparison: no value within `gap` of an edge (an edge at 0 is
    exact: a zero distance is in the first bin everywhere)."""
    values = np.asarray(values, dtype=np.float64).ravel()
    edges = np.asarray(edges, dtype=np.float64)
    edges = edges[edges != 0]
    if values.size == 0:
        return
    nearest = np.min(np.abs(values[:, None] - edges[None, :]), axis=1)
    assert nearest.min() > gap, "test data put a pair value on a bin edge; choose other edges"


@pytest.fixture
def points():
    return integer_points(300, seed=1)


@pytest.fixture
def points_b():
    return integer_points(200, seed=2)
