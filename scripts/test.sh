#!/usr/bin/env bash
# One command for a newcomer and for CI: set up .venv, find a Chromium, then run every test: the library
# (unit, property-based, doctests), nbval over every notebook, and the browser tests (which open each page
# of the built book in headless Chromium). The book builds in the background while the other tests run, and
# the tests run on every core (pytest-xdist; `ROOFLINE_TEST_WORKERS=1` runs them in one process).
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
bash scripts/setup.sh
source .venv/bin/activate
# Compiled bytecode kept between runs, under _build/ (never beside the sources), even where the shell says not to
# write it (PYTHONDONTWRITEBYTECODE): the library and the tests, with pytest's rewritten asserts, compile once, not
# in every worker, kernel and book build of every run (a worker's collection: 6.5 s -> 4.3 s warm).
export PYTHONPYCACHEPREFIX=$PWD/_build/pycache
unset PYTHONDONTWRITEBYTECODE

# A Chromium for the browser tests, in the order the tests look for one: ROOFLINE_CHROMIUM, Playwright's own
# build, the system's. Only when there is none is Debian's package installed (never a download of a browser).
chromium=$(python tests/browser/find_chromium.py)
if [ -z "$chromium" ]; then
  echo "== no Chromium found (ROOFLINE_CHROMIUM, Playwright's own, chromium on the PATH): installing Debian's"
  echo "   'chromium' package with apt-get, for the browser tests (about 115 packages, 300 MB, once)"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
  chromium=$(command -v chromium)
fi
echo "== browser tests use $chromium"
export ROOFLINE_CHROMIUM=$chromium

# The book builds on its own while the library tests and nbval start; the browser tests wait for it.
mkdir -p _build
rm -f _build/book-build.rc
(set +e; bash scripts/build_book.sh > _build/book-build.log 2>&1; echo $? > _build/book-build.rc) &
build=$!
trap 'kill $build 2>/dev/null || true' EXIT
export ROOFLINE_BOOK_HTML=_build/html ROOFLINE_BOOK_BUILD_RC=_build/book-build.rc ROOFLINE_BOOK_BUILD_PID=$build

# The README's test command always runs the browser tests: a missing Chromium fails, never skips.
export ROOFLINE_BROWSER_REQUIRED=1
workers=${ROOFLINE_TEST_WORKERS:-$(nproc)}
# One BLAS thread per process: the workers already use every core, and OpenBLAS's threads on the notebooks'
# small matrices cost more than they save (chapter 7 runs in half the time with one).
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1} OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
parallel=(); [ "$workers" -gt 1 ] && parallel=(-n "$workers")
python -m pytest -p no:cacheprovider "${parallel[@]}" --nbval notebooks lib tests "$@"
wait $build
echo "== all tests passed in $(( $(date +%s) - start )) s"
