"""fdp.Ledger: the library's ledger on the file `fdp ledger` uses; the two
take turns on one file and agree on what it holds."""

import pytest

import fdp


def test_python_and_cli_share_a_ledger(tmp_path, cli):
    path = str(tmp_path / "l.json")
    led = fdp.Ledger.create(path, budget_eps=3.0, delta=1e-5, mode="plan")
    st = led.add("gaussian:sigma=2", label="first")
    assert st.mode == "plan" and st.entries == 1 and st.exact
    cli("ledger", "add", path, "gaussian:sigma=3", "--label", "from the CLI")
    j = cli("ledger", "status", path)
    st = fdp.Ledger.open(path).status()
    assert st.entries == j["entries"] == 2
    assert st.spent.upper == j["spent"]["epsilon"]["upper"]
    assert st.spent.lower == j["spent"]["epsilon"]["lower"]
    assert st.remaining == j["remaining"]["epsilon"]
    assert st.remaining == pytest.approx(3.0 - st.spent.upper)
    assert [(e.spec, e.label) for e in led.entries()] == [
        ("gaussian:sigma=2", "first"), ("gaussian:sigma=3", "from the CLI")]
    rows = cli("ledger", "list", path)["records"]
    assert [r["time"] for r in rows] == [e.time for e in led.entries()]


def test_refusal_raises_budget_exceeded(tmp_path):
    path = tmp_path / "l.json"
    led = fdp.Ledger.create(path, budget_eps=1.0, delta=1e-5)
    assert led.status().mode == "adaptive"
    c = led.check("gaussian:sigma=1")
    assert not c.affordable and c.after.upper > 1.0
    with pytest.raises(fdp.BudgetExceeded, match="over budget") as e:
        led.add(["gaussian:sigma=20", "gaussian:sigma=1"])  # all or nothing
    assert not isinstance(e.value, ValueError)
    assert led.status().entries == 0
    assert led.check("gaussian:sigma=20").affordable
    led.add("gaussian:sigma=20")
    assert led.status().entries == 1 and led.status().filter_epsilon < 1.0


def test_signed_ledger(tmp_path):
    key = tmp_path / "key"
    key.write_bytes(b"0123456789abcdef0123")
    path = tmp_path / "l.json"
    fdp.Ledger.create(path, budget_eps=2.0, delta=1e-6, key_file=key).add("laplace:eps=0.5")
    assert fdp.Ledger.open(path, key_file=key).status().integrity == "hmac-verified"
    unverified = fdp.Ledger.open(path)
    assert unverified.status().integrity == "hmac-unverified"
    with pytest.raises(ValueError, match="signed"):
        unverified.add("laplace:eps=0.1")


def test_bad_input(tmp_path):
    path = tmp_path / "l.json"
    with pytest.raises(ValueError, match="mode"):
        fdp.Ledger.create(path, budget_eps=1.0, delta=1e-5, mode="sometimes")
    with pytest.raises(ValueError, match="eps"):
        fdp.Ledger.create(path, budget_eps=-1.0, delta=1e-5)
    fdp.Ledger.create(path, budget_eps=1.0, delta=1e-5)
    with pytest.raises(ValueError, match="already exists"):
        fdp.Ledger.create(path, budget_eps=1.0, delta=1e-5)
    with pytest.raises(ValueError, match="sigma"):
        fdp.Ledger.open(path).add("gaussian:sigma=-1")
    short = tmp_path / "short"
    short.write_bytes(b"abc")
    with pytest.raises(ValueError, match="16"):
        fdp.Ledger.open(path, key_file=short)
