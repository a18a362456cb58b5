"""JSON -> YAML -> load gives the same data (the conversion promise of the YAML design)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stoker.cli.output import to_json, to_yaml
from stoker.template.loader import load_document
from stoker.template.nodes import plain

pytestmark = pytest.mark.heavy

# Template-shaped data: string keys, JSON scalars, nested maps and lists; text includes
# multi-line strings, YAML-significant words ("yes", "null", "2013-05-23") and unicode.
keys = st.text(min_size=1, max_size=12).filter(lambda k: k.strip() == k and "\x00" not in k)
texts = st.one_of(
    st.text(max_size=40),
    st.sampled_from(["yes", "no", "null", "~", "2013-05-23", "1e3", "0x10", "on", "'", '"']),
    st.text(alphabet="ab \n\t#:-", max_size=30),
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**53), max_value=2**53),
    st.floats(allow_nan=False, allow_infinity=False),
    texts,
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)),
    max_leaves=15,
)
templates = st.fixed_dictionaries(
    {"heat_template_version": st.just("2013-05-23")},
    optional={
        "resources": st.dictionaries(
            keys,
            st.fixed_dictionaries({"type": texts, "properties": st.dictionaries(keys, values)}),
        ),
        "outputs": st.dictionaries(keys, st.fixed_dictionaries({"value": values})),
    },
)


@settings(max_examples=60, deadline=None)
@given(templates)
def test_json_to_yaml_to_load_gives_the_same_data(template):
    json_text = json.dumps(template)
    from_json = load_document(json_text).data
    yaml_text = to_yaml(plain(from_json))
    from_yaml = load_document(yaml_text).data
    assert plain(from_yaml) == plain(from_json) == template


@settings(max_examples=30, deadline=None)
@given(templates)
def test_yaml_to_json_to_load_gives_the_same_data(template):
    from_yaml = load_document(to_yaml(template)).data
    from_json = load_document(to_json(plain(from_yaml))).data
    assert plain(from_json) == template
