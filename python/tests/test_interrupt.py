"""Ctrl-C stops a long computation: KeyboardInterrupt within a poll of the
engine, and the module works normally afterwards (nothing half-done is kept)."""

import os
import signal
import threading

import pytest

import fdp

# A composition that runs for seconds uninterrupted (about 4 s here, against
# the 0.3 s before the signal: a very fine tolerance, large grids).
LONG = ["subsampled-gaussian:sigma=0.8,q=0.01,times=10000", "laplace:b=40,times=9",
        "subsampled-laplace:b=2,q=0.02,times=3000"]


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(),
                    reason="signals reach the main thread only")
def test_ctrl_c_stops_a_long_composition():
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            fdp.compose(LONG, tolerance=1e-7).epsilon(1e-5)  # (composes at the query)
    finally:
        timer.cancel()
    e = fdp.compose(["gaussian:sigma=1"]).epsilon(1e-5)
    assert e.lower <= fdp.gdp.eps(1.0, 1e-5) <= e.upper


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(),
                    reason="signals reach the main thread only")
def test_ctrl_c_stops_calibration():
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            fdp.dpsgd_solve(1.0, 1e-7, solve="sigma", q=0.001, steps=10**7)
    finally:
        timer.cancel()
