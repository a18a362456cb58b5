"""The update suite's cases, the result both sides produce, and how two results compare.

Shared by the recorder (``record.py``, real Heat) and the comparator
(``test_updates.py``, stoker), so both read a case and shape a result the same way.

A case (one key of ``cases/<area>.yaml``):

``before`` / ``after``
    the templates (data, or text when a case needs the exact text); a PUT without
    ``after`` sends ``before`` again, a PATCH (``existing: true``) without ``after``
    sends no template.
``files`` / ``files_after``
    the files map (provider templates, ``get_file`` targets), sent with the create (and
    with the update unless ``files_after`` replaces them); stoker reads them from disk
    beside the template.
``create`` / ``update``
    the request's other fields: ``parameters`` (strings, as the CLI sends them),
    ``environment`` (data; Heat gets it as ``environment``, stoker as ``-e``),
    ``environment_files`` (a list of environments, data or text: Heat gets them as
    heatclient sends several ``-e`` files, named in ``environment_files`` with their texts
    in the files map, and merges them in order over ``environment``; stoker gets one
    ``-e`` each, after ``environment``'s),
    ``disable_rollback`` (``false``: rollback enabled; the create defaults to ``true``),
    ``timeout_mins`` (Heat's field; stoker's ``--timeout``), and for the update
    ``clear_parameters``.
``existing: true``
    PATCH (``--existing``) instead of PUT.
``preview: false``
    no preview (``--dry-run``) before the update.
``show_nested: true``
    the preview with Heat's ``show_nested`` (stoker's ``--show-nested``): the nested
    stacks' resources join the same lists.
``show_environment: true``
    also record the stored environment after the update (``GET .../environment``,
    ``stack environment show``), hidden values masked as Heat masks them.
``opaque``
    output names whose values differ per run (generated): compared as ``same`` or
    ``changed`` against the outputs after the create.

``cancel``
    ``stack cancel`` during the update: ``at`` (the resource IN_PROGRESS when Heat is
    asked; stoker is stopped before its handler starts) and ``rollback`` (``false``:
    ``cancel_without_rollback``, ``--no-rollback``); ``during: create`` cancels the
    create instead (Heat cancels a create only without rollback), and the update then
    starts from what the cancelled create left.

``known``
    a deliberate difference or a Heat bug stoker does not copy: ``skip`` (the fields not
    compared) and ``why`` (the reason; each deliberate difference is also listed in
    docs/heat-differences.md).
``fragment``
    the part of Heat's message that names the fault when Heat refuses the update request
    (the recorder checks it is in Heat's message, the comparator that it is in stoker's);
    without one only the verdict counts.

A result (what both sides record): ``create_status``, ``preview`` (names per kind, or
``{"status": code}`` when refused), ``update_refused`` and ``update_error`` (a request
refused before anything ran: Heat's HTTP 4xx, stoker's error line), ``status``,
``reason``, ``parameters`` (without pseudo-parameters),
``outputs`` (value, or ``{"error": ...}``), ``events`` (the update's: resource, status,
reason, and whether the physical id is the one before the update), ``resources``
(status, type as the stack shows it, ``old``/``new`` physical id) and, with
``show_environment``, ``environment`` (the stored environment after the update).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..normalize import normalize

HERE = Path(__file__).parent
CASES = HERE / "cases"
RECORDINGS = HERE / "recordings"
ENGINES = ("convergence", "legacy")
#: the engine stoker follows where Heat's two engines differ (Heat's default)
FOLLOWED = "convergence"


@dataclass(frozen=True)
class Case:
    area: str
    name: str
    spec: dict[str, Any]

    @property
    def id(self) -> str:
        return f"{self.area}/{self.name}"

    @property
    def stack_name(self) -> str:
        cleaned = "".join(c if c.isalnum() else "-" for c in self.name)
        return f"upd-{self.area}-{cleaned}"[:120]

    def digest(self) -> str:
        """What was sent, hashed: a recording is stale when its digest differs. ``known``
        is stoker's side of the comparison, not sent: marking a difference keeps the
        recording."""
        sent = {k: v for k, v in self.spec.items() if k != "known"}
        text = json.dumps(sent, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def template(self, key: str) -> str:
        value = self.spec[key]
        return value if isinstance(value, str) else yaml.safe_dump(value, sort_keys=False)

    def files(self, stage: str) -> dict[str, str]:
        found = self.spec.get("files") or {}
        if stage == "after" and "files_after" in self.spec:
            found = self.spec["files_after"] or {}
        return {
            k: v if isinstance(v, str) else yaml.safe_dump(v, sort_keys=False)
            for k, v in found.items()
        }

    @property
    def skip(self) -> frozenset[str]:
        known = self.spec.get("known") or {}
        if known and not known.get("why"):
            raise ValueError(f"{self.id}: a known difference needs its reason (why)")
        return frozenset(known.get("skip") or ())

    @property
    def existing(self) -> bool:
        return bool(self.spec.get("existing"))

    def request(self, stage: str) -> dict[str, Any]:
        return dict(self.spec.get(stage) or {})

    def environment_files(self, stage: str) -> dict[str, str]:
        """The stage's ``environment_files`` by the names they are sent under, in order."""
        found = self.request("update" if stage == "after" else "create")
        return {
            f"{'update' if stage == 'after' else 'create'}-env{index}.yaml": (
                value if isinstance(value, str) else yaml.safe_dump(value, sort_keys=False)
            )
            for index, value in enumerate(found.get("environment_files") or ())
        }

    def cancels(self, action: str) -> dict[str, Any] | None:
        """The case's ``cancel`` when it stops ``action`` (``create`` or ``update``)."""
        spec = self.spec.get("cancel")
        return spec if spec and spec.get("during", "update") == action else None


def load_cases() -> list[Case]:
    found = [
        Case(path.stem, str(name), spec)
        for path in sorted(CASES.glob("*.yaml"))
        for name, spec in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).items()
    ]
    ids = [c.id for c in found]
    if len(ids) != len(set(ids)):
        raise ValueError("duplicate update case ids")
    return found


def load_recordings() -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(RECORDINGS.glob("*.json")):
        for name, value in json.loads(path.read_text(encoding="utf-8")).items():
            found[f"{path.stem}/{name}"] = value
    return found


def save_recording(case: Case, engine: str, result: dict[str, Any]) -> None:
    """Into the area's file, under a lock: the two engines' recorders may run at once."""
    with (RECORDINGS / ".lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _save(case, engine, result)


def _save(case: Case, engine: str, result: dict[str, Any]) -> None:
    path = RECORDINGS / f"{case.area}.json"
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    entry = data.setdefault(case.name, {})
    if entry.get("digest") != case.digest():
        entry.clear()
        entry["digest"] = case.digest()
    entry[engine] = result
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def stale(case: Case, recordings: dict[str, dict[str, Any]]) -> bool:
    entry = recordings.get(case.id) or {}
    return entry.get("digest") != case.digest() or any(e not in entry for e in ENGINES)


# -- shaping a result ------------------------------------------------------------------------

#: the exception class some reasons start with (Heat's TestResource raises ValueError,
#: stoker's fails with ResourceFailure): reasons are compared after it
EXCEPTION_PREFIX = re.compile(r"^\w+(Error|Failure|Exception|Invalid\w*|NotFound): ")
#: the same before a resource's path inside a longer reason ("Resource UPDATE failed:
#: ValueError: resources.b: ...")
EXCEPTION_BEFORE_PATH = re.compile(r"\b(ValueError|ResourceFailure): (?=resources\.)")
#: the random suffix of a physical name generated from the stack's name
GENERATED = re.compile(r"(<stack>-[\w-]*?-)[a-z0-9]{12}\b")


def reason(text: str | None, stack_name: str) -> str:
    text = normalize(text or "", stack_name).replace(stack_name, "<stack>")
    text = EXCEPTION_BEFORE_PATH.sub("", EXCEPTION_PREFIX.sub("", text))
    return GENERATED.sub(r"\1<random>", text)


def which(physical_id: str | None, before: str | None) -> str:
    """Whether a physical id is the one the resource had before the update ("none" when
    there is none yet: a resource that never got one)."""
    if not physical_id:
        return "none"
    return "old" if physical_id == before else "new"


def outputs(
    listed: list[dict[str, Any]], stack_name: str, opaque: list[str], before: dict[str, Any]
) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for output in listed:
        key = output["output_key"]
        value: Any
        if output.get("output_error"):
            value = {"error": reason(output["output_error"], stack_name)}
        else:
            value = normalize(output.get("output_value"), stack_name)
        if key in opaque:
            value = "same" if before.get(key) == output.get("output_value") else "changed"
        found[key] = value
    return found


def events(
    listed: list[dict[str, Any]], stack_name: str, before_ids: dict[str, str]
) -> list[list[str]]:
    return [
        [
            "<stack>" if e["resource_name"] == stack_name else e["resource_name"],
            e["resource_status"],
            reason(e.get("resource_status_reason"), stack_name),
            # an event before the resource has a physical id counts as the new one's (Heat
            # shows some such events with the id the resource gets later)
            which(e.get("physical_resource_id"), before_ids.get(e["resource_name"])).replace(
                "none", "new"
            ),
        ]
        for e in listed
    ]


def resources(listed: list[dict[str, Any]], before_ids: dict[str, str]) -> dict[str, list[str]]:
    return {
        r["resource_name"]: [
            r["resource_status"],
            r["resource_type"],
            which(r["physical_resource_id"], before_ids.get(r["resource_name"])),
        ]
        for r in listed
    }


def per_resource(found: list[list[str]]) -> dict[str, list[list[str]]]:
    """Each resource's events in order (the interleaving of independent resources is
    scheduling, not semantics)."""
    grouped: dict[str, list[list[str]]] = {}
    for name, status, why, which in found:
        grouped.setdefault(name, []).append([status, why, which])
    return grouped


#: the fields compared, in the order a difference is reported
FIELDS = ("create_status", "create_reason", "update_refused", "preview", "status", "reason")
FIELDS += ("parameters", "outputs", "resources", "events", "environment")


def differences(
    heat: dict[str, Any],
    ours: dict[str, Any],
    skip: frozenset[str] = frozenset(),
    fragment: str | None = None,
) -> Iterator[tuple[str, Any, Any]]:
    for field in FIELDS:
        if field in skip:
            continue
        theirs, mine = heat.get(field), ours.get(field)
        if field == "events":
            theirs, mine = per_resource(theirs or []), per_resource(mine or [])
        if theirs != mine:
            yield field, theirs, mine
    refused = fragment and heat.get("update_refused") and "update_error" not in skip
    if refused and squash(fragment or "") not in squash(ours.get("update_error") or ""):
        yield "update_error", heat.get("update_error"), ours.get("update_error")


def squash(text: str) -> str:
    """Lowercased, runs of whitespace as one space: messages are compared as such."""
    return " ".join(text.lower().split())
