"""Bad input gets an exception a user can act on, never a crash or a silent wrong answer."""

import subprocess
import sys

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
    with pytest.raises(ValueError, match="1 to 3 coordinates"):
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
    assert issubclass(twobody.ArgumentError, twobody.Error) and issubclass(twobody.ArgumentError, ValueError)
    assert "ArgumentError" in twobody.Error.__doc__ and "checks refused" in twobody.ArgumentError.__doc__
    # A bin count the library's checks refuse: an ArgumentError in Python terms, the source
    # location kept apart for bug reports.
    with pytest.raises(twobody.ArgumentError) as caught:
        twobody.histogram(x, bins=10**9, range=(0.0, 8.0), **CPU)
    message = str(caught.value)
    assert ".cuh" not in message and "twobody::" not in message, message
    assert caught.value.where.split(":")[-1].isdigit(), caught.value.where


def test_messages_speak_python(x):
    if not twobody.gpu_available():
        with pytest.raises(twobody.Error) as caught:
            twobody.count_pairs(x, r=2.0, backend="gpu")
        message = str(caught.value)
        assert 'backend="cpu"' in message and "exec::" not in message and ".cuh" not in message, message
    with pytest.raises(TypeError, match="by keyword"):
        twobody.count_pairs(x, 0.5, **CPU)  # r by position
    with pytest.raises(TypeError, match="newbyteorder"):
        twobody.count_pairs(x.astype(">f8"), r=1.0, **CPU)
    with pytest.raises(ValueError, match="1 to 3 coordinates"):
        twobody.rdf(np.zeros((10, 4)) + np.arange(10)[:, None], box=32.0, r_max=8.0, bins=4, **CPU)


def test_fallback_notice_speaks_python():
    if twobody.gpu_available():
        pytest.skip("a GPU is usable: backend='auto' runs there without a notice")
    code = "import numpy as np, twobody; twobody.count_pairs(np.arange(12.0).reshape(4, 3), r=9.0)"
    err = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stderr
    assert 'backend="cpu"' in err and "twobody::" not in err, err


def test_empty_sets_and_nan_follow_the_documented_rules(x):
    # Counts and histograms of no pairs are zeros; g(r) of no pairs is refused, by name.
    assert twobody.count_pairs(x[:1], r=5.0, **CPU) == 0
    h = twobody.histogram(x[:0], bins=4, range=(0.0, 8.0), **CPU)
    assert h.pairs == 0 and h.counts.sum() == 0 and h.outside == 0
    with pytest.raises(ValueError, match="at least one pair"):
        twobody.rdf(x[:1], box=32.0, r_max=8.0, bins=4, **CPU)
    # A NaN point: its pairs never count; rdf warns that it still normalises by every point.
    y = x.copy()
    y[0, 1] = np.nan
    assert twobody.count_pairs(y, r=1000.0, **CPU) == (len(y) - 1) * (len(y) - 2) // 2
    with pytest.warns(RuntimeWarning, match="NaN coordinates"):
        twobody.rdf(y, box=64.0, r_max=8.0, bins=4, **CPU)
    # A NaN weight: every weighted sum it enters is NaN, with a warning.
    w = np.ones(len(x))
    w[3] = np.nan
    with pytest.warns(RuntimeWarning, match="NaN"):
        assert np.isnan(twobody.count_pairs(x, r=1000.0, weights=w, **CPU))
