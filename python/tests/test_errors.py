"""Bad input gets an exception a user can act on, never a crash or a silent wrong answer."""

import numpy as np
import pytest

import twobody

from conftest import integer_points

CPU = dict(backend="cpu")


@pytest.fixture
def x():
    return integer_points(50, seed=3)


def test_dtypes(x):
    with pytest.raises(TypeError, match="float32, float64 or float16"):
        twobody.count_pairs(x.astype(np.int64), r=1.0, **CPU)
    with pytest.raises(TypeError, match="dtype"):
        twobody.count_pairs(x, x.astype(np.float32), r=1.0, **CPU)
    with pytest.raises(TypeError, match="None"):
        twobody.count_pairs(None, r=1.0, **CPU)


def test_shapes(x):
    with pytest.raises(ValueError, match="3-dimensional"):
        twobody.count_pairs(x.reshape(5, 10, 3), r=1.0, **CPU)
    with pytest.raises(ValueError, match="box= is not supported"):
        twobody.rdf(np.zeros((10, 4), np.float32) + 1.0, box=10.0, r_max=2.0, **CPU)
    with pytest.raises(ValueError, match="coordinates per point"):
        twobody.count_pairs(x, x[:, :2], r=1.0, **CPU)
    with pytest.raises(ValueError, match="one weight per point"):
        twobody.count_pairs(x, r=1.0, weights=np.ones(3), **CPU)
    with pytest.raises(ValueError, match="both point sets"):
        twobody.count_pairs(x, x, r=1.0, weights=np.ones(len(x)), **CPU)
    with pytest.raises(ValueError, match="3 coordinates"):
        twobody.histogram(x[:, :2], metric="rp_pi", bins=(2, 2), range=(1.0, 1.0), **CPU)


def test_arguments(x):
    with pytest.raises(ValueError, match="r must be"):
        twobody.count_pairs(x, r=-1.0, **CPU)
    with pytest.raises(ValueError, match="r must be"):
        twobody.count_pairs(x, r=float("nan"), **CPU)
    with pytest.raises(ValueError, match="at least one bin"):
        twobody.histogram(x, bins=0, range=(0, 1), **CPU)
    with pytest.raises(TypeError, match="bins must be an int"):
        twobody.histogram(x, bins=2.5, range=(0, 1), **CPU)
    with pytest.raises(ValueError, match="lo < hi"):
        twobody.histogram(x, bins=4, range=(2, 1), **CPU)
    with pytest.raises(ValueError, match="bin range"):
        twobody.histogram(x, bins=4, **CPU)
    with pytest.raises(ValueError, match="lo > 0"):
        twobody.histogram(x, bins=4, range=(0, 1), scale="log", **CPU)
    with pytest.raises(ValueError, match="metric"):
        twobody.histogram(x, bins=4, range=(0, 1), metric="manhattan", **CPU)
    with pytest.raises(ValueError, match="backend"):
        twobody.count_pairs(x, r=1.0, backend="tpu")
    with pytest.raises(ValueError, match="eps"):
        twobody.pairs_within(x, eps=-0.5, **CPU)
    with pytest.raises(ValueError, match="bandwidth"):
        twobody.kernel_sum(x, bandwidth=0.0, **CPU)
    with pytest.raises(ValueError, match="estimator"):
        twobody.xi(x, x, bins=3, range=(1, 2), estimator="davis-peebles", **CPU)


def test_periodic_box_rules(x):
    with pytest.raises(ValueError, match="lie in the box"):
        twobody.count_pairs(x, r=1.0, box=16.0, **CPU)  # coordinates up to 31
    with pytest.raises(ValueError, match="half the shortest box side"):
        twobody.histogram(x, bins=4, range=(0, 17.0), box=32.0, **CPU)
    with pytest.raises(ValueError, match="one side per coordinate"):
        twobody.count_pairs(x, r=1.0, box=[32.0, 32.0], **CPU)
    with pytest.raises(ValueError, match="finite and > 0"):
        twobody.count_pairs(x, r=1.0, box=[32.0, 0.0, 32.0], **CPU)
    with pytest.raises(ValueError, match="rdf needs the periodic box"):
        twobody.rdf(x, box=None, r_max=1.0, **CPU)
    with pytest.raises(ValueError, match="periodic box"):
        twobody.histogram(x, bins=4, range=(0, 8.0), box=32.0, weights=np.ones(len(x)), **CPU)


def test_library_errors_are_twobody_errors(x):
    assert issubclass(twobody.Error, RuntimeError)
    # rdf with no pairs: the C++ estimator refuses to divide by zero pairs.
    with pytest.raises(twobody.Error, match="no pairs"):
        twobody.rdf(x[:1], box=32.0, r_max=8.0, bins=4, **CPU)
