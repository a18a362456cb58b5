"""The fidelity cases: inputs authored by hand in ``cases/*.yaml``, expanded per version.

A case file maps a case name to its inputs::

    list_join_basic:
      versions: [2013-05-23, 2016-10-14]   # optional: one case per version, @VERSION@ replaced
      template: |                          # the template text, sent to Heat as it is
        heat_template_version: @VERSION@
        outputs:
          o: {value: {list_join: [",", [a, b]]}}
      environments: [...]                  # optional: environment texts, merged in order
      files: {nested.yaml: ...}            # optional: the files map (provider templates, get_file)
      parameters: {name: value}            # optional: parameter values, as strings
      fragment: "..."                      # optional: a piece of Heat's error message
      opaque: [key]                        # optional: outputs compared by type and length only

A case may also be a table: ``table`` maps a row name to the text put in place of ``@EXPR@``
(or to a mapping with ``expr`` and any of the keys above, which override the case's own for
that row), and the case expands once per row and version, as ``name.row@version``. Tables
let one template shape carry many inputs (every function at every version, say) without
copying the template::

    function_in_output:
      versions: [2015-10-15, 2021-04-16]
      template: |
        heat_template_version: @VERSION@
        outputs:
          o: {value: @EXPR@}
      table:
        list_join: '{list_join: [",", [a, b]]}'
        str_split_late: {expr: '{str_split: [",", "a,b"]}', versions: [2015-04-30]}

Both the recorder and the comparator read cases through this module, so they agree on what
a case's inputs are; ``digest`` lets the comparator notice a case edited after recording.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).parent
CASES = HERE / "cases"
RECORDINGS = HERE / "recordings"
PLACEHOLDER = "@VERSION@"
EXPRESSION = "@EXPR@"


@dataclass(frozen=True)
class Case:
    """One expanded case: everything sent to Heat and to stoker."""

    area: str
    name: str
    template: str
    environments: tuple[str, ...] = ()
    files: dict[str, str] = field(default_factory=dict)
    parameters: dict[str, str] = field(default_factory=dict)
    fragment: str | None = None
    reason_fragment: str | None = None
    opaque: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        return f"{self.area}/{self.name}"

    @property
    def stack_name(self) -> str:
        """A name valid for Heat and stoker, the same on both sides (outputs may show it)."""
        cleaned = "".join(c if c.isalnum() else "-" for c in self.name)
        return f"fid-{self.area}-{cleaned}"[:200]

    def digest(self) -> str:
        """What was sent to Heat, hashed: a recording is stale when its digest differs."""
        inputs = [self.template, list(self.environments), self.files, self.parameters]
        return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()[:16]


def _expand(area: str, name: str, spec: dict[str, Any]) -> list[Case]:
    if "table" in spec:
        found = []
        for row, value in spec["table"].items():
            own = value if isinstance(value, dict) else {"expr": value}
            merged = {k: v for k, v in spec.items() if k != "table"} | own
            expr = str(merged.pop("expr"))

            def put(text: str, expr: str = expr) -> str:
                return text.replace(EXPRESSION, expr)

            merged["template"] = put(merged["template"])
            merged["environments"] = [put(e) for e in merged.get("environments", ())]
            merged["files"] = {k: put(v) for k, v in (merged.get("files") or {}).items()}
            found.extend(_expand(area, f"{name}.{row}", merged))
        return found
    versions = spec.get("versions") or [None]
    found = []
    for version in versions:

        def sub(text: str, version: Any = version) -> str:
            return text.replace(PLACEHOLDER, str(version)) if version is not None else text

        found.append(
            Case(
                area=area,
                name=name if version is None else f"{name}@{version}",
                template=sub(spec["template"]),
                environments=tuple(sub(e) for e in spec.get("environments", ())),
                files={k: sub(v) for k, v in (spec.get("files") or {}).items()},
                parameters={k: str(v) for k, v in (spec.get("parameters") or {}).items()},
                fragment=spec.get("fragment"),
                reason_fragment=spec.get("reason_fragment"),
                opaque=tuple(spec.get("opaque", ())),
            )
        )
    return found


def load_cases() -> list[Case]:
    """Every case of every area, in file order."""
    found: list[Case] = []
    for path in sorted(CASES.glob("*.yaml")):
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader) or {}
        for name, spec in data.items():
            found.extend(_expand(path.stem, str(name), spec))
    duplicates = {i for i, n in Counter(c.id for c in found).items() if n > 1}
    if duplicates:
        raise ValueError(f"duplicate fidelity case ids: {sorted(duplicates)}")
    return found


def load_recordings() -> dict[str, dict[str, Any]]:
    """Heat's recorded results, by case id."""
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(RECORDINGS.glob("*.json")):
        found.update(json.loads(path.read_text(encoding="utf-8")))
    return found
