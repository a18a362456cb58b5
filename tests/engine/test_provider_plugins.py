"""Provider plugins made once per run (`stoker.resolution.ProviderTemplates.plugins`): each
nested stack's check and create takes the plugin another cache of the same run made for
the same location, type name and parameters needing a value, and gets another plugin
where one of those differs."""

from __future__ import annotations

from pathlib import Path

from stoker.resolution import ProviderCache, ProviderTemplates
from stoker.resources import TemplateResource

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  size: {type: number}
  name: {type: string, default: x}
"""


def plugin(
    cache: ProviderCache, location: str, type_name: str, defaults: dict[str, object]
) -> TemplateResource:
    made = cache.get(location, type_name, defaults)
    assert isinstance(made, TemplateResource)
    return made


def first_plugin(tmp_path: Path) -> tuple[str, ProviderTemplates, TemplateResource]:
    """A provider template, a run's templates and the first plugin made of it."""
    location = str(tmp_path / "leaf.yaml")
    (tmp_path / "leaf.yaml").write_text(TEMPLATE)
    templates = ProviderTemplates()
    return location, templates, plugin(ProviderCache(templates=templates), location, "My::Leaf", {})


def test_another_cache_of_the_run_takes_the_same_plugin(tmp_path: Path) -> None:
    location, templates, first = first_plugin(tmp_path)
    again = plugin(ProviderCache(templates=templates), location, "My::Leaf", {"other": 1})
    assert again is first
    assert first.properties_schema["size"].required
    assert first.files == {}  # type: ignore[attr-defined]


def test_a_plugin_differs_where_what_it_is_made_of_differs(tmp_path: Path) -> None:
    location, templates, first = first_plugin(tmp_path)
    # parameter_defaults give size: the facade's property is no longer required
    defaulted = plugin(ProviderCache(templates=templates), location, "My::Leaf", {"size": 2})
    assert defaulted is not first
    assert not defaulted.properties_schema["size"].required
    renamed = plugin(ProviderCache(templates=templates), location, "My::Other", {})
    assert renamed.type_name == "My::Other"
    rooted = ProviderCache(str(tmp_path), templates=templates)
    assert plugin(rooted, location, "My::Leaf", {}) is not first
    # a run of its own makes its own
    assert plugin(ProviderCache(), location, "My::Leaf", {}) is not first
