#!/usr/bin/env bash
# Makes `import fdp` work for Debian's /usr/bin/python3 without copying
# anything: writes fdp.pth, one line naming <checkout>/build/python (where the
# build assembles the package: python/CMakeLists.txt), into a site-packages
# directory that Python reads .pth files from. As root that is the first
# system site dir (/usr/local/lib/python3.X/dist-packages on Debian), otherwise
# the user's site dir (~/.local/lib/python3.X/site-packages).
# FDP_PYTHON_SITE=DIR chooses the directory. Idempotent: rewrites the same line.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${FDP_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
pkg="$PWD/build/python"
if [ -n "${FDP_PYTHON_SITE:-}" ]; then
  site=$FDP_PYTHON_SITE
elif [ "$(id -u)" -eq 0 ]; then
  site=$("$PY" -c 'import site; print(site.getsitepackages()[0])')
else
  site=$("$PY" -m site --user-site)
fi
mkdir -p "$site"
echo "$pkg" > "$site/fdp.pth"
echo "install-python-path: $site/fdp.pth -> $pkg" >&2
