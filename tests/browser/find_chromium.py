"""Print the Chromium the browser tests drive, or nothing: ``python tests/browser/find_chromium.py``.

``scripts/test.sh`` runs it to decide whether a Chromium must be installed; the tests import
:func:`find_chromium` from here.
"""

import os
import shutil
from pathlib import Path


def find_chromium():
    """The Chromium to drive: ``ROOFLINE_CHROMIUM``, else Playwright's own build if one is installed, else the
    system's (``chromium``, ``chromium-browser``, ``google-chrome`` on the PATH); None if there is none."""
    given = os.environ.get("ROOFLINE_CHROMIUM")
    if given:
        return given if Path(given).is_file() else None
    try:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as pw:
            own = pw.chromium.executable_path
        if own and Path(own).is_file():
            return own
    except Exception:  # Playwright's browsers not installed, or its driver unusable here
        pass
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


if __name__ == "__main__":
    print(find_chromium() or "")
