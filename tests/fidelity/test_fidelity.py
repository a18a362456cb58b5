"""stoker against the results recorded from real Heat 24.1.2 (tests/fidelity/README.md)."""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Any

import pytest

from .cases import Case, load_cases, load_recordings
from .known import HEAT_BUGS, MISMATCHES, SEED_REQUIRED
from .normalize import normalize, project_of, without_project
from .stoker_side import output_show_all, run_case

CASES = load_cases()
RECORDINGS = load_recordings()


def _flat(text: str | None) -> str:
    return " ".join((text or "").split()).lower()


#: the areas generated from tables of inputs (several hundred cases): a fixed quarter of
#: them runs in the default suite, the rest with the slow set (CI runs both), which keeps
#: the default suite within its time while every area is compared on every run
_TABLE_AREAS = frozenset(
    {
        "attributes",
        "cfn_matrix",
        "env_matrix",
        "files_matrix",
        "fn_stages",
        "fn_versions",
        "nested_matrix",
        "param_matrix",
        "pseudo_matrix",
        "structure_matrix",
        "value_matrix",
    }
)


def _in_default_run(case: Case) -> bool:
    if case.area not in _TABLE_AREAS:
        return True
    return zlib.crc32(case.id.encode()) % 4 == 0


def _params() -> list[Any]:
    params = []
    for case in CASES:
        marks = [] if _in_default_run(case) else [pytest.mark.slow]
        if case.id in HEAT_BUGS:
            marks.append(pytest.mark.xfail(strict=True, reason=f"Heat bug: {HEAT_BUGS[case.id]}"))
        elif case.id in MISMATCHES:
            marks.append(pytest.mark.xfail(strict=True, reason=MISMATCHES[case.id]))
        params.append(pytest.param(case, id=case.id, marks=marks))
    return params


@pytest.fixture(scope="module")
def databases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One SQLite store per area (an area's stacks stay below max_stacks_per_project)."""
    return tmp_path_factory.mktemp("fidelity")


def _opaque(value: Any) -> Any:
    """A random value (RandomString) reduced to what is deterministic: its type and length."""
    return (type(value).__name__, len(value) if isinstance(value, str | list | dict) else None)


def differences(case: Case, heat: dict[str, Any], ours: dict[str, Any]) -> list[str]:
    """What stoker shows differently from Heat, as readable lines (empty: they agree)."""
    found: list[str] = []
    if heat["validate"]["ok"] != ours["validate"]["ok"]:
        if heat["validate"]["ok"]:
            return [f"validate: Heat accepts, stoker refuses: {ours['validate']['message']}"]
        who = "heatclient" if heat["validate"].get("client") else "Heat"
        return [f"validate: {who} refuses ({heat['validate']['message']}), stoker accepts"]
    if not heat["validate"]["ok"]:
        if case.fragment and _flat(case.fragment) not in _flat(ours["validate"]["message"]):
            found.append(f"validate message lacks {case.fragment!r}: {ours['validate']['message']}")
        return found
    theirs, mine = (
        normalize(heat["create"], case.stack_name),
        normalize(ours["create"], case.stack_name),
    )
    if not theirs.get("refused") and not mine.get("refused"):
        theirs = without_project(theirs, project_of(theirs["parameters"]))
        mine = without_project(mine, project_of(mine["parameters"]))
    if bool(theirs.get("refused")) != bool(mine.get("refused")):
        return [f"create: Heat {theirs}, stoker {mine}"]
    if theirs.get("refused"):
        if case.fragment and _flat(case.fragment) not in _flat(mine["message"]):
            found.append(f"create refusal lacks {case.fragment!r}: {mine['message']}")
        return found
    if theirs["status"] != mine["status"]:
        found.append(
            f"status: Heat {theirs['status']} ({theirs['reason']}), stoker "
            f"{mine['status']} ({mine['reason']})"
        )
    elif theirs["status"].endswith("COMPLETE"):
        if theirs["reason"] != mine["reason"]:
            found.append(f"reason: Heat {theirs['reason']!r}, stoker {mine['reason']!r}")
    elif case.reason_fragment and _flat(case.reason_fragment) not in _flat(mine["reason"]):
        found.append(f"reason lacks {case.reason_fragment!r}: {mine['reason']}")
    if theirs["parameters"] != mine["parameters"]:
        found.append(f"parameters: Heat {theirs['parameters']}, stoker {mine['parameters']}")
    heat_outputs = {o["key"]: o for o in theirs["outputs"]}
    our_outputs = {o["key"]: o for o in mine["outputs"]}
    if heat_outputs.keys() != our_outputs.keys():
        found.append(f"output keys: Heat {sorted(heat_outputs)}, stoker {sorted(our_outputs)}")
    for key in sorted(heat_outputs.keys() & our_outputs.keys()):
        h, o = heat_outputs[key], our_outputs[key]
        if ("error" in h) != ("error" in o):
            found.append(f"output {key}: Heat {h}, stoker {o}")
        elif "error" not in h:
            hv, ov = h["value"], o["value"]
            if key in case.opaque:
                hv, ov = _opaque(hv), _opaque(ov)
            if hv != ov:
                found.append(f"output {key}: Heat {hv!r}, stoker {ov!r}")
    return found


@pytest.mark.parametrize("case", _params())
def test_matches_heat(case: Case, tmp_path: Path, databases: Path) -> None:
    heat = RECORDINGS.get(case.id)
    assert heat is not None, f"{case.id} was never recorded: run tests/fidelity/record.py"
    assert heat["digest"] == case.digest(), f"{case.id} changed since it was recorded"
    found = differences(
        case, heat, run_case(case, tmp_path, f"sqlite:///{databases / case.area}.db")
    )
    if case.id in SEED_REQUIRED:
        required, why = SEED_REQUIRED[case.id]
        assert found == [required], f"required by the seeds ({why}); found: {found}"
        return
    assert not found, "\n".join(found)


def test_output_show_agrees_with_create(tmp_path: Path) -> None:
    """The comparison reads outputs from ``stack show -f json``; ``stack output show --all``
    must show the same (values and output_error), here on cases with both kinds."""
    wanted = ("groups/group_member_out_of_range", "groups/group_basic@2018-08-31")
    chosen = [c for c in CASES if c.id in wanted]
    assert len(chosen) == len(wanted)
    db_url = f"sqlite:///{tmp_path / 'outputs.db'}"
    for case in chosen:
        created = run_case(case, tmp_path / case.area, db_url)["create"]
        assert created["outputs"] == output_show_all(case, db_url)


def test_known_lists_name_real_cases() -> None:
    ids = {case.id for case in CASES}
    tables = (MISMATCHES.keys(), HEAT_BUGS.keys(), SEED_REQUIRED.keys())
    assert not set().union(*tables) - ids
    assert sum(map(len, tables)) == len(set().union(*tables)), "a case in two tables"


def test_suite_is_large_enough() -> None:
    assert len(CASES) >= 300
