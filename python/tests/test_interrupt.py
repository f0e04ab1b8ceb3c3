"""Ctrl-C stops a long computation: KeyboardInterrupt within a poll of the
engine, and the module works normally afterwards (nothing half-done is kept)."""

import contextlib
import os
import signal
import threading

import pytest

import fdp

# A composition that runs for seconds uninterrupted (about 4 s here, against
# the 0.3 s before the signal: a very fine tolerance, large grids).
LONG = ["subsampled-gaussian:sigma=0.8,q=0.01,times=10000", "laplace:b=40,times=9",
        "subsampled-laplace:b=2,q=0.02,times=3000"]

main_thread_only = pytest.mark.skipif(threading.current_thread() is not threading.main_thread(),
                                      reason="signals reach the main thread only")


@contextlib.contextmanager
def ctrl_c_after(seconds):
    """SIGINT to this process `seconds` into the block, which must raise
    KeyboardInterrupt (the test fails if the block ends first)."""
    timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            yield
    finally:
        timer.cancel()


@main_thread_only
def test_ctrl_c_stops_a_long_composition():
    with ctrl_c_after(0.3):
        fdp.compose(LONG, tolerance=1e-7).epsilon(1e-5)  # (composes at the query)
    e = fdp.compose(["gaussian:sigma=1"]).epsilon(1e-5)
    assert e.lower <= fdp.gdp.eps(1.0, 1e-5) <= e.upper


@main_thread_only
def test_ctrl_c_stops_calibration():
    # (about 2 s uninterrupted: each of its evaluations composes LONG)
    with ctrl_c_after(0.3):
        fdp.calibrate("gaussian", "sigma", 14.0, 1e-7, others=LONG)
