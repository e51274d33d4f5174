#!/usr/bin/env bash
# One command for a newcomer: set up .venv, then build the book. Prints where the HTML is.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source .venv/bin/activate
bash scripts/build_book.sh
