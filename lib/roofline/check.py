"""Self-check for exercises: compare a student's answer with the computed one.

>>> check(2500, 2400, rel_tol=0.1, what="balance batch")
✓ balance batch: 2,500 is within 10% of 2,400.
True
>>> check("lots", 2400)
✗ answer: expected a number, got 'lots'.
False
>>> check(1, None)
✗ answer: cannot check against None (the expected value must be a finite number).
False
"""

import math
import numbers

from ._check import short


def _real(x):
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def check(answer, expected, rel_tol=0.05, what="answer", why=""):
    """Print whether ``answer`` is within ``rel_tol`` of ``expected``, and why; never raises.

    Returns True or False so a notebook can also branch on it. Whatever it is given
    (strings, None, arrays, NaN, huge integers, a bad tolerance) it prints what is wrong
    and returns False.
    """
    try:
        what = what[:] if isinstance(what, str) else short(what)  # [:] turns a str subclass into a plain str
        why = why[:] if isinstance(why, str) else ""
        if not _real(expected) or not math.isfinite(float(expected)):
            print(f"✗ {what}: cannot check against {short(expected)} (the expected value must be a finite number).")
            return False
        if not _real(rel_tol) or not 0 <= float(rel_tol) < math.inf:
            print(f"✗ {what}: rel_tol must be a finite number >= 0; got {short(rel_tol)}.")
            return False
        if answer is None:
            print(f"· {what}: no answer yet;\n  replace None with yours and run the cell again.")
            return False
        if not _real(answer):
            print(f"✗ {what}: expected a number, got {short(answer)}.")
            return False
        a, e, tol = float(answer), float(expected), float(rel_tol)
        if not math.isfinite(a):
            print(f"✗ {what}: {short(answer)} is not a finite number.")
            return False
        ok = math.isclose(a, e, rel_tol=tol)
        mark, verb = ("✓", "is within") if ok else ("✗", "is not within")
        print(f"{mark} {what}: {a:,.4g} {verb} {tol:.0%} of {e:,.4g}." + (f" {why}" if why and not ok else ""))
        return ok
    except Exception as err:  # never raise: a student's cell must keep running
        print(f"✗ answer: could not check ({type(err).__name__}).")
        return False
