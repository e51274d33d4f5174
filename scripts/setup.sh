#!/usr/bin/env bash
# Create .venv (Python 3.11 or 3.12) and install the pinned requirements, the roofline library included.
# Safe to re-run: an existing .venv is reused and brought up to date; when requirements.txt and
# pyproject.toml have not changed since its last install, pip is skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-}
if [ -z "$PY" ]; then
  for cand in python3.11 python3.12 python3; do
    if command -v "$cand" >/dev/null 2>&1; then PY=$cand; break; fi
  done
fi
ver=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
case "$ver" in
  3.11|3.12) ;;
  *) echo "error: Python 3.11 or 3.12 is required (found $PY = $ver); set PYTHON=/path/to/python3.11" >&2; exit 1 ;;
esac

if [ ! -x .venv/bin/python ]; then
  echo "== creating .venv with $PY ($ver)"
  "$PY" -m venv .venv
fi
# What was installed is recorded as a hash of requirements.txt and pyproject.toml (the roofline
# package's own metadata), written only after a successful install: the same hash means .venv is up
# to date and pip is not run again. Set ROOFLINE_FORCE_INSTALL=1 to install anyway.
stamp=.venv/.requirements.sha256
want=$(cat requirements.txt pyproject.toml | sha256sum | cut -d' ' -f1)
if [ "${ROOFLINE_FORCE_INSTALL:-0}" != 1 ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "== .venv already matches requirements.txt and pyproject.toml: pip install skipped"
else
  rm -f "$stamp"
  echo "== installing requirements.txt into .venv"
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -r requirements.txt
  echo "$want" > "$stamp"
fi
.venv/bin/python -c "import roofline; print('== roofline', roofline.__version__, 'installed from', roofline.__path__[0])"
