"""Cases where stoker does not (yet) show what Heat shows, each with a one-line reason.

Both lists run as ``xfail(strict=True)``: when a fix makes a case match, the test fails
and the entry must go. ``HEAT_BUGS`` are differences on purpose: Heat is plainly wrong
there, and docs/heat-differences.md ("Recorded Heat bugs") says what stoker does instead.
"""

from __future__ import annotations

MISMATCHES: dict[str, str] = {}

HEAT_BUGS: dict[str, str] = {}
