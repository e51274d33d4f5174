#!/usr/bin/env bash
# Re-execute chapter notebooks top to bottom and save them, the way the tests expect them committed:
# no widget state (the published book must load no widget scripts from a CDN) and no timing metadata
# (so a re-run changes only what really changed). Usage: bash scripts/execute_notebooks.sh [NOTEBOOK ...]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/jupyter ] && source .venv/bin/activate
[ $# -gt 0 ] || set -- notebooks/*.ipynb
for nb in "$@"; do
  echo "== executing $nb"
  (cd "$(dirname "$nb")" && jupyter nbconvert --to notebook --execute --inplace \
      --ExecutePreprocessor.store_widget_state=False --ExecutePreprocessor.record_timing=False \
      "$(basename "$nb")")
done
