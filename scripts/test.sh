#!/usr/bin/env bash
# One command for a newcomer and for CI: set up .venv and Chromium, then run every test:
# the library (unit, property-based, doctests), nbval over every notebook, and the browser tests
# (which build the book and open each page in headless Chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
bash scripts/setup.sh

if [ ! -x /usr/bin/chromium ]; then
  echo "== installing Debian's chromium for the browser tests"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi

source .venv/bin/activate
# The README's test command always runs the browser tests: a missing Chromium fails, never skips.
export ROOFLINE_BROWSER_REQUIRED=1
python -m pytest -p no:cacheprovider --nbval notebooks lib tests "$@"
echo "== all tests passed in $(( $(date +%s) - start )) s"
