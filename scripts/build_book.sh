#!/usr/bin/env bash
# Build the book into _build/html. Assumes the environment is set up
# (pip install -r requirements.txt); run from anywhere inside the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
jupyter-book build . --config book/_config.yml --toc book/_toc.yml --warningiserror
echo "The book is at $(pwd)/_build/html/index.html"
