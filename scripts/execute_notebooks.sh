#!/usr/bin/env bash
# Re-execute chapter notebooks top to bottom and save them, the way the tests expect them committed:
# no widget state (the published book must load no widget scripts from a CDN), no timing metadata and each
# cell's printed lines as one stream (so a re-run changes only what really changed).
# Usage: bash scripts/execute_notebooks.sh [NOTEBOOK ...]
# Runs nbclient (installed with myst-nb) in the notebook's own folder, as `jupyter nbconvert --execute
# --inplace` would, without needing nbconvert.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=python; [ -x .venv/bin/python ] && PY=.venv/bin/python
[ $# -gt 0 ] || set -- notebooks/*.ipynb
for nb in "$@"; do
  echo "== executing $nb"
  "$PY" - "$nb" <<'PYTHON'
import pathlib, sys

import nbformat
from nbclient import NotebookClient

path = pathlib.Path(sys.argv[1]).resolve()
nb = nbformat.read(path, as_version=4)
NotebookClient(nb, timeout=600, kernel_name="python3", store_widget_state=False, record_timing=False,
               resources={"metadata": {"path": str(path.parent)}}).execute()
for cell in nb.cells:  # a cell's printed lines as one stream, however the kernel flushed them (as nbval reads them)
    merged = []
    for out in cell.get("outputs", []):
        if merged and out.output_type == "stream" and merged[-1].output_type == "stream" \
                and merged[-1].name == out.name:
            merged[-1].text += out.text
        else:
            merged.append(out)
    if cell.cell_type == "code":
        cell.outputs = merged
nbformat.write(nb, path)
PYTHON
done
