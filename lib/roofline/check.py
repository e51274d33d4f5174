"""Self-check for exercises: compare a student's answer with the computed one.

>>> check(2500, 2400, rel_tol=0.1, what="balance batch")
✓ balance batch: 2,500 is within 10% of 2,400.
True
>>> check("lots", 2400)
✗ answer: expected a number, got 'lots'.
False
"""

import math
import numbers


def check(answer, expected, rel_tol=0.05, what="answer", why=""):
    """Print whether ``answer`` is within ``rel_tol`` of ``expected``, and why; never raises.

    Returns True or False so a notebook can also branch on it.
    """
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
        print(f"✗ {what}: expected a number, got {answer!r}.")
        return False
    if not math.isfinite(answer):
        print(f"✗ {what}: {answer!r} is not a finite number.")
        return False
    ok = math.isclose(answer, expected, rel_tol=rel_tol)
    mark, verb = ("✓", "is within") if ok else ("✗", "is not within")
    print(f"{mark} {what}: {answer:,.4g} {verb} {rel_tol:.0%} of {expected:,.4g}." + (f" {why}" if why and not ok else ""))
    return ok
