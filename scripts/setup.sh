#!/usr/bin/env bash
# Create .venv (Python 3.11 or 3.12) and install the pinned requirements, the roofline library included.
# Safe to re-run: an existing .venv is reused and brought up to date.
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
echo "== installing requirements.txt into .venv"
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -r requirements.txt
.venv/bin/python -c "import roofline; print('== roofline', roofline.__version__, 'installed from', roofline.__path__[0])"
