"""Objects shared between threads give the answers they give alone."""

import threading

import numpy as np

import fdp
from fdp.dp_accounting import GaussianDpEvent, PLDAccountant


def test_concurrent_queries_agree_with_serial_ones():
    specs = ["subsampled-gaussian:sigma=1.0,q=0.01,times=2000", "laplace:b=20,times=10"]
    serial = fdp.compose(specs)
    alphas = np.linspace(0, 1, 20001)
    want_eps = [serial.epsilon(d) for d in (1e-5, 1e-6, 1e-3)]
    want_curve = serial.curve(alphas)
    shared = fdp.compose(specs)  # fresh: lazily built parts are built concurrently
    errors = []

    def work():
        try:
            got = [shared.epsilon(d) for d in (1e-5, 1e-6, 1e-3)]
            band = shared.curve(alphas)
            assert got == want_eps
            assert np.array_equal(band.lower, want_curve.lower)
            assert np.array_equal(band.upper, want_curve.upper)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_accountant_from_threads():
    acc = PLDAccountant()
    threads = [threading.Thread(target=lambda: acc.compose(GaussianDpEvent(4.0), 5))
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert acc.specs() == ["gaussian:sigma=4,times=20"]
