"""stoker's stack update against real Heat 24.1.2's recorded answers (README.md)."""

from __future__ import annotations

import json

import pytest

from . import suite
from .stoker_side import Stoker, run_case

pytestmark = pytest.mark.heavy

CASES = suite.load_cases()
RECORDED = suite.load_recordings()


@pytest.fixture(scope="module")
def stoker(tmp_path_factory: pytest.TempPathFactory) -> Stoker:
    directory = tmp_path_factory.mktemp("updates")
    return Stoker(f"sqlite:///{directory / 'stoker.db'}", directory)


def test_every_case_is_recorded_from_both_engines() -> None:
    assert [c.id for c in CASES if suite.stale(c, RECORDED)] == []


def test_the_suite_holds_enough_cases() -> None:
    assert len(CASES) >= 150


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_update_matches_heat(case: suite.Case, stoker: Stoker) -> None:
    heat = RECORDED[case.id][suite.FOLLOWED]
    skip = case.skip
    ours = run_case(case, stoker)
    found = list(suite.differences(heat, ours, skip, case.spec.get("fragment")))
    assert not found, json.dumps(
        {field: {"heat": theirs, "stoker": mine} for field, theirs, mine in found}, indent=1
    )
