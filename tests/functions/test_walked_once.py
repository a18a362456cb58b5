"""What a template's calls keep between the walks of one command: a pure call's clean
argument check (`PureFunction.check_lasts`) and a tree's calls in a scope
(`functions_in`). Each kept answer must be the one a new walk would give."""

from __future__ import annotations

from typing import Any

import pytest

from stoker.errors import LimitExceeded
from stoker.functions.base import Function, Parser, Scope, functions_in, iter_functions
from stoker.functions.strings import PureFunction
from stoker.functions.tables import table_for
from stoker.limits import Limits, applied
from stoker.template.versions import LATEST_HOT

from .conftest import DictContext


def _parse(data: Any) -> Any:
    return Parser(table_for(LATEST_HOT)).parse(data, ("outputs", "o", "value"))


def _checks_counted(call: PureFunction, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    counted: list[int] = []
    original = type(call).check_arguments

    def counting(self: PureFunction) -> Any:
        counted.append(1)
        return original(self)

    monkeypatch.setattr(type(call), "check_arguments", counting)
    return counted


def test_a_clean_check_of_literal_arguments_is_made_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    call = _parse({"str_replace": {"template": "$a-$b", "params": {"$a": "x", "$b": 2}}})
    assert isinstance(call, PureFunction)
    counted = _checks_counted(call, monkeypatch)
    scope = Scope(version=LATEST_HOT)
    assert list(call.validate(scope)) == []
    for _ in range(3):
        assert call.resolve(DictContext()) == "x-2"
    assert len(counted) == 1


def test_a_failed_check_is_made_again_at_each_evaluation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    call = _parse({"list_join": [5, ["a"]]})
    assert isinstance(call, PureFunction)
    counted = _checks_counted(call, monkeypatch)
    for _ in range(2):
        with pytest.raises(Exception, match="delimiter must be a string"):
            call.resolve(DictContext())
    assert len(counted) == 2


def test_a_literal_map_param_is_measured_against_the_budget_at_each_evaluation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """str_replace's check measures a literal list or map param against what is left of
    the command's value budget, which shrinks as the command runs: not kept."""
    call = _parse({"str_replace": {"template": "$a", "params": {"$a": {"k": "v" * 100}}}})
    assert isinstance(call, PureFunction)
    assert call.check_lasts() is False
    counted = _checks_counted(call, monkeypatch)
    assert call.resolve(DictContext()) == '{"k": "' + "v" * 100 + '"}'
    with applied(Limits(value_size=50)), pytest.raises(LimitExceeded):
        call.resolve(DictContext())
    assert len(counted) == 2


def test_functions_in_keeps_the_walk_of_a_tree_per_scope() -> None:
    tree = _parse(
        {
            "a": {"if": ["on", {"get_param": "x"}, {"get_param": "y"}]},
            "b": [{"get_resource": "r"}],
        }
    )
    unknown = Scope(version=LATEST_HOT, conditions=frozenset({"on"}))
    calls = functions_in(tree, unknown)
    assert calls == list(iter_functions(tree, unknown))
    assert [c.name for c in calls] == ["if", "get_param", "get_param", "get_resource"]
    assert functions_in(tree, unknown) is calls  # kept, not walked again
    known = Scope(version=LATEST_HOT, conditions=frozenset({"on"}), condition_values={"on": False})
    taken = functions_in(tree, known)
    assert taken == list(iter_functions(tree, known))
    assert [c.args for c in taken if c.name == "get_param"] == ["y"]
    other = _parse({"a": {"get_param": "z"}})
    assert [c.args for c in functions_in(other, unknown)] == ["z"]
    assert all(isinstance(c, Function) for c in calls)
