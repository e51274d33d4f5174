#!/usr/bin/env bash
# Re-execute chapter notebooks top to bottom and save them, the way the tests expect them committed:
# no widget state (the published book must load no widget scripts from a CDN), no timing metadata, and each
# cell's outputs in one form: printed lines one stream, hidden glue records last (so a re-run changes only what
# really changed).
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
RECORD = "application/papermill.record/"  # a value glued for the text, shown nowhere (roofline.notebook.glue)
for cell in nb.cells:  # one form however the kernel timed its messages: the cell's visible outputs in order, its
    if cell.cell_type != "code":  # printed lines one stream between them (as nbval and myst-nb read them), then
        continue  # its hidden glue records in the order glued (a record goes out without waiting for printed text)
    shown, hidden = [], []
    for out in cell.get("outputs", []):
        if out.output_type == "display_data" and out.get("data") and all(k.startswith(RECORD) for k in out.data):
            hidden.append(out)
        elif shown and out.output_type == "stream" and shown[-1].output_type == "stream" \
                and shown[-1].name == out.name:
            shown[-1].text += out.text
        else:
            shown.append(out)
    cell.outputs = shown + hidden
nbformat.write(nb, path)
PYTHON
done
