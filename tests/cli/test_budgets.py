"""The evaluation budget (stoker.limits): one test per bomb class of issue 11.

Each bomb is made small and run against a limit set small through its option (or its
environment variable), so it takes milliseconds; the test checks what a user meets: exit
status 1, one located line naming the limit's option, no traceback. The whole-process
figures at full size (time, peak RSS) are benchmarks/bombs.py's; the slow test at the
end runs them and holds them to issue 11's aim.
"""

from __future__ import annotations

import io
import json
import re
import sys
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

from stoker.errors import LimitExceeded
from stoker.limits import LIMITS, Limits, applied, charge, json_value, value_size
from stoker.template import loader
from stoker.template.loader import LoadLimits, load_document, read_file

from .entry import stoker

ROOT = Path(__file__).resolve().parents[2]
HEADER = "heat_template_version: 2018-08-31\n"
VALUE = "resources:\n  r:\n    type: OS::Heat::Value\n    properties:\n      value:\n"
LOCATED = re.compile(r"^(?:error: )?(\S+):(\d+):(\d+): (.*)$")


def _write(tmp_path: Path, text: str, name: str = "t.yaml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _refused(result, option: str, line: int | None = None) -> str:  # type: ignore[no-untyped-def]
    """The located line of a refused evaluation, naming ``option``: the finding (then the
    usual ``error:`` summary, when the loader found it), or the one ``error:`` line
    itself when the evaluation stopped."""
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert 1 <= len(lines) <= 2 and lines[-1].startswith("error: "), lines
    match = LOCATED.match(lines[0])
    assert match, lines[0]
    assert option in lines[0] and ("over the limit of" in lines[0] or "raise the limit" in lines[0])
    if line is not None:
        assert int(match.group(2)) == line, lines[0]
    return lines[0]


# ------------------------------------------------------------------ the document itself


def test_string_alias_bomb_stops_at_the_expanded_size(tmp_path):
    text = (
        HEADER
        + VALUE
        + f"        - &s {'x' * 100}\n"
        + "        - &l [*s, *s, *s, *s, *s, *s, *s, *s, *s, *s]\n"
        + "        - [*l, *l, *l, *l, *l, *l, *l, *l, *l, *l]\n"
    )
    path = _write(tmp_path, text)
    assert stoker("template", "validate", path).returncode == 0  # 11,100 characters
    result = stoker("template", "validate", "--max-expanded-size", "5000", path)
    line = _refused(result, "--max-expanded-size", line=9)
    assert "characters" in line


def test_node_limit_names_its_option_in_yaml_and_json(tmp_path):
    many = "resources:\n" + "".join(f"  r{i}: {{type: OS::Heat::None}}\n" for i in range(50))
    path = _write(tmp_path, HEADER + many)
    _refused(stoker("template", "validate", "--max-nodes", "100", path), "--max-nodes")
    body = ", ".join(f'"r{i}": {{"type": "OS::Heat::None"}}' for i in range(50))
    json_path = _write(
        tmp_path, f'{{"heat_template_version": "2018-08-31", "resources": {{{body}}}}}', "t.json"
    )
    result = stoker("template", "convert", "--to", "yaml", "--max-nodes", "100", json_path)
    assert result.returncode == 1 and "--max-nodes" in result.stderr


def test_depth_limit_is_settable(tmp_path):
    path = _write(tmp_path, HEADER + "description: [[[[x]]]]\n")
    assert stoker("template", "validate", path).returncode == 0
    result = stoker("template", "validate", "--max-depth", "3", path)
    assert result.returncode == 1 and "--max-depth" in result.stderr
    assert f"{path}:2:" in result.stderr


def test_large_template_is_refused_unread_and_streamed_when_allowed(tmp_path, monkeypatch):
    path = _write(tmp_path, HEADER + "resources:\n  r:\n    type: OS::Heat::None\n")
    result = stoker("template", "validate", "--max-template-size", "20", path)
    assert result.returncode == 1 and "--max-template-size" in result.stderr
    # A YAML file above the streaming threshold is read by libyaml in pieces: same nodes,
    # same positions, and a syntax error still finds the tab that caused it.
    monkeypatch.setattr(loader, "STREAM_FROM_BYTES", 10)
    streamed = read_file(path)
    whole = load_document(Path(path).read_bytes(), path)
    assert streamed.data == whole.data
    assert streamed.data["resources"].key_spans["r"] == whole.data["resources"].key_spans["r"]
    bad = _write(tmp_path, HEADER + "resources:\n  r:\n\ttype: x\n", "tab.yaml")
    with pytest.raises(Exception) as caught:
        read_file(bad)
    assert "tab character" in str(caught.value) and ":4:1:" in str(caught.value)
    monkeypatch.setattr(loader, "STREAM_FROM_BYTES", 10)
    nodes = _write(tmp_path, HEADER + "resources:\n" + "  r: {type: a}\n" * 1, "n.yaml")
    with pytest.raises(Exception, match="--max-nodes"):
        read_file(nodes, LoadLimits(max_nodes=3))


# ------------------------------------------------------------------ values functions build


def test_list_join_over_aliased_lists_is_refused_before_joining(tmp_path):
    text = (
        HEADER
        + "parameters: {}\n"
        + VALUE
        + "        list_join:\n          - ','\n"
        + f"          - &a [{'y' * 50}, {'z' * 50}]\n"
        + "          - &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
        + "          - [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
    )
    path = _write(tmp_path, text)
    assert stoker("template", "resolve", path).returncode == 0
    line = _refused(
        stoker("template", "resolve", "--max-value-size", "2000", path), "--max-value-size"
    )
    assert "list_join" in line


def test_str_replace_copying_a_value_is_refused_before_building(tmp_path):
    text = (
        HEADER
        + "parameters: {}\n"
        + VALUE
        + "        str_replace:\n"
        + f"          template: {'$v' * 100}\n"
        + f"          params: {{$v: {'z' * 100}}}\n"
    )
    path = _write(tmp_path, text)
    assert stoker("template", "resolve", path).returncode == 0
    line = _refused(
        stoker("template", "resolve", "--max-value-size", "5000", path),
        "--max-value-size",
        line=8,
    )
    assert "str_replace" in line and "would build a value of about 10,000 bytes" in line


def _repeat_product(lists: int, items: int) -> str:
    values = "[" + ", ".join(f"v{i}" for i in range(items)) + "]"
    keys = "".join(f"%{k}%" for k in range(lists))
    for_each = "".join(
        f"            '%{k}%': &l {values}\n" if k == 0 else f"            '%{k}%': *l\n"
        for k in range(lists)
    )
    return (
        HEADER
        + VALUE
        + f"        repeat:\n          template: '{keys}'\n          for_each:\n"
        + for_each
    )


def test_repeat_of_a_large_product_is_refused_at_the_default_limit(tmp_path):
    # 100**6 combinations: never built, refused from the counts alone
    path = _write(tmp_path, _repeat_product(6, 100))
    line = _refused(stoker("template", "validate", path), "--max-value-size", line=7)
    assert '"repeat" would build a value of about' in line
    small = _write(tmp_path, _repeat_product(2, 10), "small.yaml")
    assert stoker("template", "validate", small).returncode == 0


def test_nested_repeat_is_refused_where_the_product_grows_too_large(tmp_path):
    items = "[" + ", ".join(f"v{i}" for i in range(30)) + "]"
    inner = "'%a%'"
    for level in range(3):
        inner = f"{{repeat: {{template: [{inner}], for_each: {{'%x{level}%': {items}}}}}}}"
    path = _write(tmp_path, HEADER + VALUE.replace("value:\n", f"value: {inner}\n"))
    assert stoker("template", "validate", path).returncode == 0  # 27,000 items
    line = _refused(
        stoker("template", "validate", "--max-value-size", "100000", path), "--max-value-size"
    )
    # the outermost repeat is the one that would pass the limit
    assert "value.repeat:" in line


def test_total_of_all_values_is_bounded(tmp_path, monkeypatch):
    calls = "".join(
        f"  r{i}:\n    type: OS::Heat::Value\n    properties:\n"
        f"      value: {{list_join: ['-', [{'a' * 100}, {'b' * 100}]]}}\n"
        for i in range(20)
    )
    path = _write(tmp_path, HEADER + "resources:\n" + calls)
    assert stoker("template", "validate", path).returncode == 0
    monkeypatch.setenv("STOKER_MAX_TOTAL_VALUE_SIZE", "2000")
    line = _refused(stoker("template", "validate", path), "--max-total-value-size")
    assert "built by the function calls before it" in line


def test_value_size_counts_shared_values_where_used_and_stops_early():
    leaf = ["x" * 100]
    shared: list[object] = leaf
    for _ in range(60):  # 2**60 leaves if written out
        shared = [shared, shared]
    assert value_size(shared, 10_000, 1000) > 10_000
    assert value_size(shared, 10**30, 10) == -1  # deeper than the depth limit
    assert value_size({"k": ["ab", 1]}, 10**6, 10) == 8 + 16 + 1 + 8 + 16 + 2
    with applied(Limits(depth=5)), pytest.raises(LimitExceeded, match="--max-depth"):
        charge([[[[[["deep"]]]]]], '"list_concat"')


def test_a_value_built_at_create_time_fails_its_resource(tmp_path):
    # known only once v0 exists, so validation cannot see it: the create refuses it
    text = (
        HEADER
        + "resources:\n  v0:\n    type: OS::Heat::Value\n"
        + f"    properties: {{value: {'x' * 100}}}\n"
        + "  v1:\n    type: OS::Heat::Value\n    properties:\n      value:\n"
        + "        str_replace:\n"
        + f"          template: {'$a' * 50}\n"
        + "          params: {$a: {get_attr: [v0, value]}}\n"
    )
    path = _write(tmp_path, text)
    db = str(tmp_path / "s.db")
    failed = stoker("--db", db, "stack", "create", "big", "-t", path, "--max-value-size", "4000")
    assert failed.returncode == 1 and "Traceback" not in failed.stderr
    assert "CREATE_FAILED" in failed.stderr.splitlines()[-1]
    assert f"{path}:10:9: resources.v1.properties.value.str_replace:" in failed.stderr
    assert "--max-value-size" in failed.stderr.splitlines()[-1]
    assert stoker("--db", db, "stack", "create", "fits", "-t", path).returncode == 0


def test_get_file_of_a_file_larger_than_a_value_is_not_read(tmp_path):
    (tmp_path / "big.txt").write_text("b" * 5000, encoding="utf-8")
    text = HEADER + VALUE + "        get_file: big.txt\n"
    path = _write(tmp_path, text)
    assert stoker("template", "validate", path).returncode == 0
    result = stoker("template", "validate", "--max-value-size", "1000", path)
    assert result.returncode == 1
    assert f"{path}:7:9:" in result.stderr and "has 5,000 bytes" in result.stderr
    assert "--max-value-size" in result.stderr
    lint = stoker("lint", "--max-value-size", "1000", path)
    assert lint.returncode == 1 and "E0006" in lint.stdout and "--max-value-size" in lint.stdout


def test_a_stack_created_under_raised_limits_is_shown_and_deleted_under_smaller_ones(tmp_path):
    body = "".join(f"  r{i}: {{type: OS::Heat::None}}\n" for i in range(8))
    path = _write(tmp_path, HEADER + "resources:\n" + body)
    db = str(tmp_path / "s.db")
    assert stoker("--db", db, "stack", "create", "s", "-t", path).returncode == 0
    with applied(Limits(resources=5)):  # in force while the (limit-less) commands run
        shown = stoker("--db", db, "stack", "show", "s")  # rebuilds the stored definition
        deleted = stoker("--db", db, "stack", "delete", "s", "--yes")
    assert shown.returncode == 0, shown.stderr
    assert deleted.returncode == 0, deleted.stderr


# ------------------------------------------------------------------ resources and zips


def test_group_fanning_out_is_refused_before_its_members_exist(tmp_path):
    text = (
        HEADER
        + "resources:\n  group:\n    type: OS::Heat::ResourceGroup\n    properties:\n"
        + "      count: 11\n      resource_def: {type: OS::Heat::None}\n"
    )
    path = _write(tmp_path, text)
    assert stoker("template", "validate", path).returncode == 0
    line = _refused(
        stoker("template", "validate", "--max-resources", "10", path), "--max-resources", line=3
    )
    assert "11 members" in line
    # the same at stack create, before anything is stored (the database is not touched)
    result = stoker(
        "stack",
        "create",
        "--dry-run",
        "fan",
        "-t",
        path,
        env={"STOKER_MAX_RESOURCES": "10", "STOKER_DB_URL": str(tmp_path / "s.db")},
    )
    _refused(result, "--max-resources", line=3)


def test_many_resources_in_one_template(tmp_path, monkeypatch):
    body = "".join(f"  r{i}: {{type: OS::Heat::None}}\n" for i in range(11))
    path = _write(tmp_path, HEADER + "resources:\n" + body)
    monkeypatch.setenv("STOKER_MAX_RESOURCES", "10")
    line = _refused(stoker("template", "validate", path), "--max-resources", line=2)
    assert "declares 11 resources" in line
    lint = stoker("lint", path)
    assert lint.returncode == 1 and "E0006" in lint.stdout and "--max-resources" in lint.stdout


def _zip(tmp_path: Path, members: dict[str, str]) -> str:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    path = tmp_path / "package.zip"
    path.write_bytes(buffer.getvalue())
    return str(path)


@pytest.mark.parametrize(
    ("option", "value", "members"),
    [
        ("--max-zip-members", "3", {f"t{i}.yaml": HEADER for i in range(4)}),
        ("--max-zip-size", "1000", {"base.yaml": HEADER + "description: " + "d" * 2000}),
        ("--max-zip-ratio", "50", {"base.yaml": HEADER + "description: " + "d" * 100_000}),
    ],
)
def test_zip_package_limits(tmp_path, option, value, members):
    path = _zip(tmp_path, members)
    result = stoker("lint", option, value, path)
    assert result.returncode == 1
    finding = result.stdout.strip().splitlines()[0]
    assert finding.startswith(f"{path}:1:1: E0101 error:") and option in finding


def test_a_zip_file_larger_than_the_zip_size_is_not_read(tmp_path):
    path = _zip(tmp_path, {f"t{i}.yaml": HEADER + f"description: {i}\n" for i in range(20)})
    result = stoker("lint", "--max-zip-size", "1000", path)
    assert result.returncode == 1
    assert "the archive has" in result.stdout and "--max-zip-size" in result.stdout


def test_a_zip_member_over_the_template_size_is_not_inflated(tmp_path):
    path = _zip(tmp_path, {"base.yaml": HEADER + "description: " + "d" * 10_000})
    result = stoker("lint", "--max-template-size", "1000", path)
    assert result.returncode == 1
    assert "E0002" in result.stdout and "Template size (10047 bytes)" in result.stdout


# ------------------------------------------------------------------ the defaults, as documented


def test_defaults_are_the_documented_ones():
    readme = (ROOT / "docs" / "usage.md").read_text(encoding="utf-8")
    defaults = Limits()
    for name in Limits.__slots__:  # its fields
        limit = LIMITS[name]
        row = f"| `{limit.option}` | `{limit.envvar}` | {getattr(defaults, name)} |"
        assert row in readme, row
    help_text = stoker("lint", "--help").stdout
    for limit in LIMITS.values():
        assert limit.option in help_text


def test_corpus_like_tree_passes_the_default_limits():
    tripleo = ROOT / "tests" / "fixtures" / "tripleo"
    result = stoker(
        "template",
        "validate",
        str(tripleo / "overcloud.yaml"),
        "-e",
        str(tripleo / "environments" / "default.yaml"),
    )
    assert result.returncode == 0, result.stderr


# ------------------------------------------------------------------ whole processes, full size


@pytest.mark.slow
@pytest.mark.serial  # eleven processes of up to a few hundred MB each: run alone
def test_every_bomb_ends_small_with_a_located_error():
    """Each bomb of issue 11 ends as a non-zero exit with a located finding naming the limit
    that stopped it, within 256 MB: stopped by the limit, before the work the bomb asks
    for. How long each takes (issue 11's 2 s of CPU) is measured by benchmarks/bombs.py,
    not asserted here: a duration depends on the machine and its load. A runaway is still
    caught, by the child's CPU cap (30 s): it ends killed, not located."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bombs
    finally:
        sys.path.pop(0)
    import os
    import tempfile

    with tempfile.TemporaryDirectory() as directory:
        env = {**os.environ, "STOKER_DB_URL": str(Path(directory, "b.db"))}
        for bomb in bombs.BOMBS:
            where = Path(directory, bomb.name)
            where.mkdir()
            outcome = bombs.run(bomb.build(where), env, cap_mb=2048, cap_seconds=30)
            ending = bombs.verdict(outcome, bomb)
            assert ending.startswith("exit 1, located:"), (bomb.name, ending)
            assert outcome.rss_mb <= 256, (bomb.name, outcome.rss_mb)


def test_a_json_text_within_one_depth_limit_is_checked_again_under_another() -> None:
    """`json_value` remembers a text it found within the depth limit, for that limit
    only: the same text under a lower limit is refused."""
    text = json.dumps({"a": {"b": {"c": [1]}}})
    with applied(replace(Limits(), depth=10)):
        assert json_value(text) == {"a": {"b": {"c": [1]}}}
        assert json_value(text) == {"a": {"b": {"c": [1]}}}
    with applied(replace(Limits(), depth=2)), pytest.raises(ValueError, match="levels deep"):
        json_value(text)
