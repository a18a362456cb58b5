"""One ONAP requirement as data: id, keyword (hence severity), validation mode, text.

Its own module so that the seed's table (`requirements`) and the naming conventions
beyond it (`naming`) share the type without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass

from stoker.diagnostics import Severity

#: keyword -> severity (MUST / MUST NOT: error, SHOULD / SHOULD NOT: warning, MAY: info)
KEYWORD_SEVERITY = {
    "MUST": Severity.ERROR,
    "MUST NOT": Severity.ERROR,
    "SHOULD": Severity.WARNING,
    "SHOULD NOT": Severity.WARNING,
    "MAY": Severity.INFO,
    "MAY NOT": Severity.INFO,
}
SOURCE_DOCUMENT = "ONAP VNF Requirements, 5.2.2 ONAP Heat Orchestration Template Format"


@dataclass(frozen=True, slots=True)
class Requirement:
    id: str
    keyword: str
    validation_mode: str | None  # "static", "none", or None when the document gives none
    section: str
    text: str
    #: why stoker does not check it (None for the static ones, which are rules)
    not_checked: str | None = None
    #: False when ``text`` summarises the requirement in stoker's words (beyond the seed)
    quoted: bool = True

    @property
    def severity(self) -> Severity:
        return KEYWORD_SEVERITY[self.keyword]

    @property
    def static(self) -> bool:
        """ONAP's own validation checks it statically."""
        return self.validation_mode == "static"

    @property
    def checked(self) -> bool:
        """stoker has a rule for it (every requirement a static check can decide, whatever
        ONAP's validation_mode; the others say why none can)."""
        return self.not_checked is None
