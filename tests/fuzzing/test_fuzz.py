"""Mutated corpus templates and environments never crash validate, resolve, convert or lint.

The short, deterministic run of the fuzzing (`derandomize`, no example database): a few
hundred inputs, each through the four commands in this process. The long run is
``benchmarks/fuzz.py --count 100000`` (docs/benchmarks.md). A failure prints the input's
mutations; the regression test for what it found goes beside the tests of the module fixed.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .harness import Workspace, run_case, runner, workspace
from .mutations import FAMILIES, Case, make_case

pytestmark = pytest.mark.heavy

RUNNER = runner()


def cases(family: str) -> st.SearchStrategy[Case]:
    """Inputs of one mutation family, drawn (and shrunk) by Hypothesis."""
    return st.builds(make_case, st.randoms(use_true_random=False), st.just(family))


@pytest.fixture(scope="module")
def space() -> Iterator[Workspace]:
    with workspace() as found:
        yield found


def fuzz(examples: int) -> settings:
    return settings(
        derandomize=True,
        database=None,
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )


def fuzz_family(family: str, space: Workspace, examples: int) -> None:
    @fuzz(examples)
    @given(case=cases(family))
    def check(case: Case) -> None:
        failures = run_case(RUNNER, space, case)
        assert not failures, f"{case.describe()}\n" + "\n".join(map(str, failures))

    check()


@pytest.mark.parametrize("family", FAMILIES)
def test_mutated_inputs_end_in_success_or_a_located_error(family: str, space: Workspace) -> None:
    """A few inputs of each family in the default suite (its time budget is tight)."""
    fuzz_family(family, space, 12)


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
def test_more_mutated_inputs_end_in_success_or_a_located_error(
    family: str, space: Workspace
) -> None:
    """More of each family in the slow set, which CI runs as well."""
    fuzz_family(family, space, 60)


def test_the_harness_reports_a_crash_as_a_failure(space: Workspace, monkeypatch) -> None:
    """The oracle itself: an exception escaping validation is a failure of validate and
    resolve, and an internal-error finding of lint."""
    import stoker.definition.loading
    import stoker.lint.workspace

    def crash(*args: object, **kwargs: object) -> None:
        raise KeyError("planted")

    monkeypatch.setattr(stoker.definition.loading, "define_stack", crash)
    monkeypatch.setattr(stoker.lint.workspace, "define_stack", crash)
    case = make_case(random.Random(0), "values")
    kinds = {(failure.command, failure.kind) for failure in run_case(RUNNER, space, case)}
    assert kinds == {("validate", "uncaught"), ("resolve", "uncaught"), ("lint", "internal error")}
