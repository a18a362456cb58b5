"""What every ONAP rule shares: its requirement (id, keyword -> severity) and its source."""

from __future__ import annotations

from typing import Any, ClassVar

from stoker.lint.onap.requirements import SOURCE_DOCUMENT, Requirement
from stoker.lint.rule import Profile, Source, SourceKind

ONAP = frozenset({Profile.ONAP})


def onap_source(requirement: Requirement) -> Source:
    mode = requirement.validation_mode or "not given"
    document = SOURCE_DOCUMENT if requirement.quoted else "ONAP VNF Requirements"
    return Source(
        SourceKind.ONAP,
        f"{requirement.id} ({requirement.keyword}, validation_mode {mode}); "
        f"{document}, {requirement.section}",
    )


def explain(requirement: Requirement, checks: str) -> str:
    """The requirement's own words (or, beyond the seed, a summary), then what stoker
    checks for it."""
    said = requirement.text if requirement.quoted else f"In short: {requirement.text}"
    return f"{said} -- stoker checks: {checks}"


class FromRequirement:
    """A rule declared by the ONAP requirement it checks: ``id``, ``severity``, ``source``
    and ``explanation`` follow from ``requirement`` and the rule's ``checks`` text, so the
    four cannot drift apart (mix in before the rule kind: ``(FromRequirement,
    TemplateRule)``)."""

    requirement: ClassVar[Requirement]
    checks: ClassVar[str] = ""
    profiles = ONAP

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        req = cls.__dict__.get("requirement")
        if req is not None:
            declared = {
                "id": req.id,
                "severity": req.severity,
                "source": onap_source(req),
                "explanation": explain(req, cls.checks),
            }
            for name, value in declared.items():
                setattr(cls, name, value)
