#!/usr/bin/env bash
# Installs fdp's build and plot dependencies from Debian packages. Idempotent:
# quiet and fast when everything is already present.
set -euo pipefail
pkgs=(g++ cmake make pkg-config libboost-dev libeigen3-dev libfftw3-dev
      libssl-dev  # libcrypto: SHA-256 / HMAC-SHA256 of ledger files (lib/src/budget/digest.cpp)
      librandom123-dev  # Philox4x32-10 of the mechanisms' streams (lib/include/fdp/mech/rng.hpp)
      nlohmann-json3-dev libgtest-dev libgmock-dev libbenchmark-dev
      python3 python3-matplotlib python3-mpmath python3-numpy
      python3-jsonschema  # validates --json output: tests/cli/test_json_contract.py
      pybind11-dev python3-pybind11 python3-dev python3-pytest  # the Python package (python/)
      lld  # links the fdp binary in a start-up friendly order (tools/CMakeLists.txt)
      libopenmpi-dev openmpi-bin  # fdp-mpi: audits across processes (tools/fdp/distributed.hpp)
      clang libclang-rt-14-dev  # clang + libFuzzer: fuzz/run.sh
      clang-format  # scripts/check-format.sh (CI)
      help2man)  # the fdp(1) man page from the help (scripts/make-manpage.sh)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
