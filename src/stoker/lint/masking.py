"""Hidden parameter values never appear in a finding.

Messages come from many places (validation quotes rejected values, for one); every finding
passes through `mask` with the hidden values of every template of the run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from stoker.diagnostics import Diagnostic
from stoker.parameters import MASK


def _masked(text: str, secrets: Sequence[str]) -> str:
    for secret in secrets:
        if secret and secret in text:
            text = text.replace(secret, MASK)
    return text


def mask(finding: Diagnostic, secrets: Sequence[str]) -> Diagnostic:
    """``finding`` with every secret (longest first) replaced by the mask."""
    if not secrets:
        return finding
    message = _masked(finding.message, secrets)
    notes = tuple(_masked(note, secrets) for note in finding.notes)
    if message == finding.message and notes == finding.notes:
        return finding
    return replace(finding, message=message, notes=notes)
