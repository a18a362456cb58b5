"""The runner: crash isolation, suppression, masking, exit codes."""

from __future__ import annotations

from collections.abc import Iterable

from stoker.diagnostics import Diagnostic, Severity
from stoker.lint import LintConfig, Profile
from stoker.lint.context import TemplateContext
from stoker.lint.formats import FORMATTERS
from stoker.lint.registry import RULES, RuleRegistry
from stoker.lint.rule import Source, SourceKind, TemplateRule

from .cases import OK
from .helpers import ids, run, where

UNUSED = OK.replace("{get_param: name}", "fixed")  # parameter "name" at 4:3 is unused


class Crashes(TemplateRule):
    id = "W9999"
    severity = Severity.WARNING
    summary = "always raises"
    explanation = "a rule with a bug, for the test"
    source = Source(SourceKind.STOKER, "tests")

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        yield self.finding("first", ctx.start)
        raise RuntimeError("boom")


def _registry(*extra: type) -> RuleRegistry:
    registry = RuleRegistry()
    for rule in (*RULES, *extra):
        registry.register(rule)
    return registry


def test_a_crashing_rule_becomes_one_internal_error(tmp_path):
    report = run(tmp_path, {"t.yaml": UNUSED}, registry=_registry(Crashes))
    internal = [f for f in report.findings if f.code == "E0100"]
    assert where(report, "E0100") == [("t.yaml", 1, 1)]
    assert "rule W9999 failed: RuntimeError: boom" in internal[0].message
    assert where(report, "W2001") == [("t.yaml", 4, 3)]  # the other rules still ran
    assert "W9999" not in ids(report)  # nothing of the crashed run is kept


def test_no_internal_error_without_a_crash(tmp_path):
    report = run(tmp_path, {"t.yaml": UNUSED})
    assert "E0100" not in ids(report)


def test_inline_comment_on_the_line_or_the_parent_line(tmp_path):
    own_line = UNUSED.replace("  name:\n", "  name:  # stoker-lint: ignore=W2001\n")
    parent = UNUSED.replace("parameters:\n", "parameters:  # stoker-lint: ignore=W2,I2002\n")
    other_id = UNUSED.replace("  name:\n", "  name:  # stoker-lint: ignore=I2002\n")
    report = run(tmp_path, {"own.yaml": own_line, "parent.yaml": parent, "other.yaml": other_id})
    assert where(report, "W2001") == [("other.yaml", 4, 3)]
    assert report.suppressed == 2


def test_a_comment_two_levels_up_does_not_count(tmp_path):
    text = UNUSED.replace(
        "heat_template_version: 2021-04-16\n",
        "heat_template_version: 2021-04-16  # stoker-lint: ignore=W2001\n",
    )
    report = run(tmp_path, {"t.yaml": text})
    assert where(report, "W2001") == [("t.yaml", 4, 3)]


def test_ignored_ids_do_not_run_and_per_path_ignores_filter(tmp_path):
    config = LintConfig(
        profiles=(Profile.DEFAULT,),
        ignore=("I2",),
        per_path=(("pkg/legacy/*", ("W2001",)),),
        base_dir=str(tmp_path),
    )
    report = run(tmp_path, {"legacy/t.yaml": UNUSED, "new/t.yaml": UNUSED}, config=config)
    assert where(report, "W2001") == [("new/t.yaml", 4, 3)]
    assert all(rule.id != "I2002" for rule in report.rules)


def test_profiles_select_rules(tmp_path):
    onap = run(tmp_path, {"t.yaml": UNUSED}, profiles=["onap"])
    assert ids(onap) and all(code.startswith("R-") for code in ids(onap))
    both = run(tmp_path, {"t.yaml": UNUSED}, profiles=["onap", "default"])
    assert {"W2001", "R-90279"} <= ids(both)


SECRETS = {
    "t.yaml": """\
heat_template_version: 2021-04-16
parameters:
  cron:
    type: string
    hidden: true
    constraints: [{custom_constraint: cron_expression}]
  map: {type: json, hidden: true, default: {k: zebra-map}}
  text: {type: string, hidden: true}
resources:
  net:
    type: OS::Neutron::Net
    properties:
      admin_state_up: stripes
  split:
    type: OS::Heat::Value
    properties:
      value: {str_split: [',', {get_param: text}, 9]}
outputs:
  joined: {value: {list_concat: [{get_param: map}]}}
  keys: {value: {yaql: {expression: '$.data.m.nosuch()', data: {m: {get_param: map}}}}}
""",
    "t_env.yaml": "parameters:\n  cron: zebra-cron\n  text: zebra-text\n",
    "d.yaml": """\
heat_template_version: 2021-04-16
parameters:
  word:
    type: string
    hidden: true
    default: zebra-word
    constraints: [{length: {min: 20}}]
""",
}


def test_hidden_values_never_appear(tmp_path):
    """Each finding is built without the hidden value (E1020, E1021, function failures in
    properties and outputs); nothing is searched and replaced, so the literal ``stripes``,
    which is no secret, is still quoted."""
    report = run(tmp_path, SECRETS)
    assert where(report, "E1080") == [("t.yaml", 13, 23)]
    assert "stripes" in next(f.message for f in report.findings if f.code == "E1080")
    assert {(f.code, f.span.line) for f in report.findings if "hidden parameter" in f.message} >= {
        ("E1038", 17),
        ("E1038", 19),
        ("E1038", 20),
    }
    assert sum("******" in f.message for f in report.findings) == 2  # word, cron
    for render in FORMATTERS.values():
        output = render(report, report.rules)
        assert "zebra" not in output


def test_a_one_letter_hidden_value_does_not_rewrite_the_output(tmp_path):
    """String replacement would have turned every ``e`` into the mask, keys included."""
    report = run(tmp_path, {"d.yaml": SECRETS["d.yaml"].replace("zebra-word", "e")})
    output = FORMATTERS["json"](report, report.rules)
    assert '"message"' in output and "******ssage" not in output
    (finding,) = [f for f in report.findings if f.code == "E1020"]
    assert finding.message == (
        "Parameter 'word' is invalid: Invalid default ****** (length (1) is out of range "
        "(min: 20, max: None))"
    )
