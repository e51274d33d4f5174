#!/usr/bin/env bash
# Build the book into _build/html. Assumes the environment is set up
# (pip install -r requirements.txt); run from anywhere inside the repository.
# Nit-picky (-n) with warnings as errors (-W): every cross-reference, the API page's included, must
# resolve; types from other packages are listed once in nitpick_ignore in book/_config.yml.
# --keep-going reports every warning before failing, not just the first.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! jupyter-book build . --config book/_config.yml --toc book/_toc.yml --warningiserror --nitpick --keep-going; then
  # Sphinx saves what it read in _build/.doctrees even when the build fails, and the next build re-reads only
  # the pages whose sources changed: the failed build's warnings would not come again, and a rebuild with nothing
  # fixed would pass (as it did after a docstring's broken reference). Removed, the next build reads every page.
  rm -rf _build/.doctrees
  exit 1
fi
echo "The book is at $(pwd)/_build/html/index.html"
