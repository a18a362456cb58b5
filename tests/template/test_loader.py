"""Loading: format detection, positions, and every rejection the loader makes."""

from __future__ import annotations

import pytest

from stoker import codes
from stoker.errors import TemplateError
from stoker.template.loader import LoadLimits, load_document, read_file
from stoker.template.nodes import locate, plain


def rejection(source: bytes | str, limits: LoadLimits | None = None):
    with pytest.raises(TemplateError) as caught:
        load_document(source, "t.yaml", limits)
    return caught.value.diagnostics


@pytest.mark.parametrize(
    ("source", "expected_format"),
    [
        ('{"a": 1}', "json"),
        ('  \n\t {"a": 1}', "json"),
        ("a: 1", "yaml"),
        ("# comment\n{a: 1}", "yaml"),
    ],
    ids=["json", "json-after-blanks", "yaml", "comment-first"],
)
def test_format_detection(source, expected_format):
    assert load_document(source).format == expected_format


def test_empty_document_is_none():
    assert load_document("").data is None
    assert load_document("# only a comment\n").data is None


@pytest.mark.parametrize(
    "text",
    ["heat_template_version: 2013-05-23\n", '{"heat_template_version": "2013-05-23"}'],
    ids=["yaml", "json"],
)
def test_version_date_stays_a_string(text):
    value = load_document(text).data["heat_template_version"]
    assert value == "2013-05-23" and isinstance(value, str)


def test_yaml_scalars_keep_yaml_types():
    data = load_document("a: yes\nb: 1\nc: 1.5\nd: null\ne: 2016-10-14T10:00:00\n").data
    assert plain(data) == {"a": True, "b": 1, "c": 1.5, "d": None, "e": "2016-10-14T10:00:00"}


def test_yaml_positions_of_keys_and_values():
    text = "resources:\n  web:\n    type: OS::Nova::Server\n    properties:\n      n: [1, 2]\n"
    data = load_document(text, "t.yaml").data
    assert str(data["resources"].key_spans["web"]) == "t.yaml:2:3"
    assert str(locate(data, ("resources", "web", "type"))) == "t.yaml:3:11"
    assert str(locate(data, ("resources", "web", "properties", "n", 1))) == "t.yaml:5:14"
    # a path into data that does not exist points at the deepest node that does
    assert str(locate(data, ("resources", "web", "properties", "x"))) == "t.yaml:5:7"


def test_json_positions_of_keys_and_values():
    text = '{\n  "Resources": {\n    "web": {"Type": "X", "n": [1, "two"]}\n  }\n}'
    data = load_document(text, "t.json").data
    assert str(data["Resources"].key_spans["web"]) == "t.json:3:5"
    assert str(locate(data, ("Resources", "web", "Type"))) == "t.json:3:21"
    assert str(locate(data, ("Resources", "web", "n", 1))) == "t.json:3:35"


def test_json_values():
    data = load_document('{"a": [1, -2.5e3, true, false, null, "x\\u00e9\\n"], "b": {}}').data
    assert plain(data) == {"a": [1, -2500.0, True, False, None, "x\u00e9\n"], "b": {}}


@pytest.mark.parametrize(
    ("source", "code", "where", "words"),
    [
        (b"a: [1, 2\n", codes.SYNTAX, "t.yaml:2:1", "YAML syntax error"),
        (b'{"a": 1,}', codes.SYNTAX, "t.yaml:1:9", "expected a quoted key"),
        (b"{a: 1}", codes.SYNTAX, "t.yaml:1:2", "expected a quoted key"),
        (b"a: 1\nb: \xff\xfe\n", codes.ENCODING, "t.yaml:2:4", "not valid UTF-8"),
        (b"a: &x [*x]\n", codes.TOO_DEEP, "t.yaml:1:8", "recursive YAML alias"),
        (b"a: !Ref b\n", codes.SYNTAX, "t.yaml:1:4", "unsupported YAML tag"),
        (b"--- a\n--- b\n", codes.SYNTAX, "t.yaml:2:1", "YAML syntax error"),
    ],
    ids=[
        "yaml-syntax",
        "json-syntax",
        "brace-means-json",
        "not-utf8",
        "recursive-alias",
        "cfn-short-form-tag",
        "two-documents",
    ],
)
def test_rejections(source, code, where, words):
    (diagnostic,) = rejection(source)
    assert diagnostic.code == code
    assert str(diagnostic.span) == where
    assert words in diagnostic.message


@pytest.mark.parametrize(
    ("source", "where"),
    [("a: 1\nb: 2\na: 3\n", ["t.yaml:3:1"]), ('{"a": 1,\n "b": 2, "a": 3}', ["t.yaml:2:10"])],
    ids=["yaml", "json"],
)
def test_a_duplicate_key_keeps_the_last_value_with_a_warning(source, where):
    """Heat's loaders keep the last value silently (measured: the fidelity case
    resources/duplicate_key); stoker does too, and says so."""
    document = load_document(source, "t.yaml")
    assert plain(document.data) == {"a": 3, "b": 2}
    assert [str(d.span) for d in document.warnings] == where
    (warning,) = document.warnings
    assert warning.code == codes.DUPLICATE_KEY and not warning.is_error
    assert "duplicate key 'a' (first defined at line 1" in warning.message


def test_all_duplicate_keys_reported_together():
    document = load_document("a: 1\na: 2\nb: {c: 1, c: 2}\n", "t.yaml")
    assert [str(d.span) for d in document.warnings] == ["t.yaml:2:1", "t.yaml:3:11"]
    assert plain(document.data) == {"a": 2, "b": {"c": 2}}


def test_size_limit_default_and_configurable():
    big = "a: " + "x" * (512 * 1024) + "\n"
    (diagnostic,) = rejection(big)
    assert (
        diagnostic.code == codes.TOO_LARGE and "exceeds maximum allowed size" in diagnostic.message
    )
    assert load_document(big, limits=LoadLimits(max_bytes=1024 * 1024)).data["a"]
    (diagnostic,) = rejection("a: 12345\n", LoadLimits(max_bytes=5))
    assert "(9 bytes)" in diagnostic.message and "(5 bytes)" in diagnostic.message


def test_alias_expansion_bomb():
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for index in range(1, 9):
        previous, name = chr(ord("a") + index - 1), chr(ord("a") + index)
        lines.append(f"{name}: &{name} [{', '.join(['*' + previous] * 10)}]")
    (diagnostic,) = rejection("\n".join(lines) + "\n")
    assert diagnostic.code == codes.TOO_DEEP and "expands to more than" in diagnostic.message


@pytest.mark.parametrize(
    ("limits", "where", "words"),
    [
        # nodes are keys, values and items (x, 1, y, a, b): the 6th is the "c" item
        (LoadLimits(max_nodes=5), "t.yaml:2:11", "expands to more than 5 nodes"),
        # "x" + "1" + "y" + "a" + "b" = 5 characters: the 6th is the "c" item's
        (LoadLimits(max_expanded=5), "t.yaml:2:11", "expands to more than 5 characters"),
        # x, 1 and the key y: the 4th node is the first item
        (LoadLimits(max_nodes=3), "t.yaml:2:5", "expands to more than 3 nodes"),
    ],
)
def test_limits_stop_at_the_plain_scalar_that_passes_them(limits, where, words):
    with pytest.raises(TemplateError) as caught:
        load_document("x: 1\ny: [a, b, c, 7]\n", "t.yaml", limits)
    (diagnostic,) = caught.value.diagnostics
    assert str(diagnostic.span) == where and words in diagnostic.message


def test_repeated_plain_scalars_keep_their_own_places():
    data = load_document("a: [7, 7, true, x]\nb: 7\nc: {d: true}\n", "t.yaml").data
    assert plain(data) == {"a": [7, 7, True, "x"], "b": 7, "c": {"d": True}}
    assert [str(span) for span in data["a"].item_spans] == [
        "t.yaml:1:5",
        "t.yaml:1:8",
        "t.yaml:1:11",
        "t.yaml:1:17",
    ]
    assert str(data.value_spans["b"]) == "t.yaml:2:4"
    assert str(data["c"].value_spans["d"]) == "t.yaml:3:8"


def test_ordinary_aliases_are_fine():
    data = load_document("base: &b {x: 1}\nother: *b\nmerged: {<<: *b, y: 2}\n").data
    assert plain(data) == {"base": {"x": 1}, "other": {"x": 1}, "merged": {"x": 1, "y": 2}}


@pytest.mark.parametrize("form", ["yaml", "json"])
def test_nesting_limit(form):
    depth = 120
    text = "[" * depth + "]" * depth if form == "json" else "a: " + "[" * depth + "]" * depth
    if form == "json":
        text = '{"a": ' + text + "}"
    (diagnostic,) = rejection(text)
    assert diagnostic.code == codes.TOO_DEEP and "nesting deeper than 100" in diagnostic.message
    assert load_document(text, limits=LoadLimits(max_depth=200)).data


def test_byte_order_mark_is_accepted():
    assert plain(load_document("\ufeffa: 1".encode()).data) == {"a": 1}


def test_read_file(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text("a: 1\n")
    document = read_file(str(path))
    assert document.file == str(path) and plain(document.data) == {"a": 1}


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("!!int abc", "'abc' cannot be read as !!int"),
        ("!!bool maybe", "'maybe' cannot be read as !!bool"),
        ("!!float x", "'x' cannot be read as !!float"),
        ('!!int ""', "'' cannot be read as !!int"),
        ("!!seq abc", "unsupported YAML tag '!!seq'"),
        ("!!binary aGk=", "unsupported YAML tag '!!binary'"),
        ("!!set {a: 1}", "unsupported YAML tag '!!set'"),
        ("!!map [1]", "unsupported YAML tag '!!map'"),
        ("9" * 5000, "too many digits"),
    ],
    ids=[
        "int",
        "bool",
        "float",
        "empty-int",
        "seq-scalar",
        "binary",
        "set",
        "map-on-list",
        "digits",
    ],
)
def test_explicit_tags_and_huge_integers_are_refused_with_a_place(value, message):
    (diagnostic,) = rejection(f"a: 1\nb: {value}\n")
    assert diagnostic.code == codes.SYNTAX
    assert message in diagnostic.message
    assert (diagnostic.span.line, diagnostic.span.column) == (2, 4)


def test_plain_explicit_tags_still_load():
    data = plain(load_document("a: !!int 5\nb: !!float 1\nc: !!bool true\nd: !!str 7\n").data)
    assert data == {"a": 5, "b": 1.0, "c": True, "d": "7"}


def test_json_integer_beyond_the_digit_limit_is_refused_with_a_place():
    (diagnostic,) = rejection('{"a": 1,\n "b": ' + "9" * 5000 + "}")
    assert diagnostic.code == codes.SYNTAX
    assert "5000 digits" in diagnostic.message
    assert (diagnostic.span.line, diagnostic.span.column) == (2, 7)


def test_a_control_character_is_located_where_it_is():
    """Found by fuzzing: PyYAML gives a character it refuses as an offset; the finding
    pointed at 1:1 with PyYAML's own ``in "<unicode string>", position N`` tail."""
    [diagnostic] = rejection("heat_template_version: 2013-05-23\ndescription: a\x15b\n")
    assert diagnostic.code == codes.SYNTAX
    assert (diagnostic.span.line, diagnostic.span.column) == (2, 15)
    assert diagnostic.message == (
        "YAML error: unacceptable character #x0015: control characters are not allowed"
    )
