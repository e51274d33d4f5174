#!/usr/bin/env bash
# Homework: the chapters in JupyterLab, every slider live. Sets up .venv as the other commands do and, once,
# JupyterLab in its own environment .venv-lab (requirements-lab.txt); the notebooks run in .venv's Python, so
# they see exactly the pinned packages the book and the tests use, and nothing of the server's.
# Extra arguments go to `jupyter lab` (for example --no-browser or --port 8899).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
stamp=.venv-lab/.requirements.sha256
want=$(sha256sum requirements-lab.txt | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "== installing JupyterLab (requirements-lab.txt) into .venv-lab"
  [ -x .venv-lab/bin/python ] || .venv/bin/python -m venv .venv-lab
  .venv-lab/bin/python -m pip install --quiet --upgrade pip
  .venv-lab/bin/python -m pip install --quiet -r requirements-lab.txt
  echo "$want" > "$stamp"
fi
# .venv's Python as the kernel "python3" that the notebooks name, found first through JUPYTER_PATH
.venv/bin/python -m ipykernel install --prefix "$PWD/.venv-lab/roofline-kernel" --name python3 \
  --display-name "Python 3 (roofline)" >/dev/null
export JUPYTER_PATH="$PWD/.venv-lab/roofline-kernel/share/jupyter"
exec .venv-lab/bin/jupyter lab notebooks/ "$@"
