"""Make book/_extra/favicon.ico from book/_static/logo.svg.

The logo is drawn by headless Chromium (Debian's /usr/bin/chromium through Playwright, as in the
browser tests), centred on a transparent square, and saved by Pillow as one .ico holding 16, 32, 48
and 64 px images. The .ico is committed; rerun this only when the logo changes:

    .venv/bin/python scripts/make_favicon.py
"""

import io
import os
import re
import sys
from pathlib import Path

from PIL import Image
from playwright.sync_api import sync_playwright

REPO = Path(__file__).resolve().parents[1]
LOGO = REPO / "book" / "_static" / "logo.svg"
OUT = REPO / "book" / "_extra" / "favicon.ico"
SIZES = [16, 32, 48, 64]
CANVAS = 256
CHROMIUM = os.environ.get("ROOFLINE_CHROMIUM", "/usr/bin/chromium")


def square_svg(svg):
    """The logo without its white background, cropped to its drawing, centred on a square."""
    svg = re.sub(r'<rect width="240" height="120" fill="#ffffff"/>\s*', "", svg)
    svg = re.sub(r'viewBox="[^"]*"', 'viewBox="14 4 216 106"', svg)  # the axes, the roof and the dot
    return re.sub(r'width="\d+" height="\d+"', f'width="{CANVAS}" height="{CANVAS}" '
                  'preserveAspectRatio="xMidYMid meet"', svg, count=1)


def render(svg):
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": CANVAS, "height": CANVAS})
        page.set_content(f'<html><body style="margin:0;background:transparent">{svg}</body></html>')
        png = page.locator("svg").screenshot(omit_background=True)
        browser.close()
    return Image.open(io.BytesIO(png)).convert("RGBA")


def main():
    image = render(square_svg(LOGO.read_text()))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    image.save(OUT, format="ICO", sizes=[(s, s) for s in SIZES])
    print(f"wrote {OUT.relative_to(REPO)} ({OUT.stat().st_size} bytes, {SIZES} px)")


if __name__ == "__main__":
    sys.exit(main())
