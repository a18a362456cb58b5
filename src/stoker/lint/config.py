"""Lint settings: one typed value, read from ``.stoker-lint.yaml`` and the command line.

    # .stoker-lint.yaml (the nearest one from each linted path upwards, or --config FILE;
    # docs/lint-config.md describes every key)
    profiles: [default, onap]      # which rule sets run (default: [default])
    ignore: [W2001, I2]            # rule ids, or prefixes of ids, never reported
    per_path:                      # glob (relative to this file) -> ids ignored there
      legacy/*.yaml: [W1091]
    fail_level: warning            # exit 1 at or above this severity (default: error)
    environments:                  # template -> its environment files, as `-e` gives them
      app.yaml: [env/common.yaml, env/prod.yaml]

The command line wins for scalars (``--fail-level``, ``--profile``) and adds to the lists
(``--ignore``). `merge` is the one place that precedence is written down.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any

from stoker.diagnostics import Severity
from stoker.errors import ConfigError as ConfigError
from stoker.errors import TemplateError
from stoker.lint.rule import Profile
from stoker.template.loader import load_document
from stoker.template.nodes import key_span, span_of, value_span

CONFIG_NAME = ".stoker-lint.yaml"
_KEYS = ("profiles", "ignore", "per_path", "fail_level", "environments")


@dataclass(slots=True, frozen=True)
class LintConfig:
    """The settings of one lint run; immutable, compared by value."""

    profiles: tuple[Profile, ...] = (Profile.DEFAULT,)
    ignore: tuple[str, ...] = ()
    per_path: tuple[tuple[str, tuple[str, ...]], ...] = ()
    fail_level: Severity = Severity.ERROR
    #: the directory per-path globs are relative to (the config file's; else the cwd)
    base_dir: str = field(default_factory=os.getcwd)  # None: the working directory when made
    file: str | None = None
    #: template -> its environment files in ``stack create -e`` order, absolute paths;
    #: a template named here is paired with these instead of by file name
    environments: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def environments_of(self, template: str) -> tuple[str, ...] | None:
        """The environment files the config pairs with the template at ``template`` (a
        path), or None when it names none for it (then pairing is by file name)."""
        wanted = os.path.abspath(template)
        return next((found for path, found in self.environments if path == wanted), None)

    def templates_of(self, environment: str) -> list[str]:
        """The templates the config pairs with the environment file at ``environment``."""
        wanted = os.path.abspath(environment)
        return [path for path, found in self.environments if wanted in found]


def find_config(start: str | None = None) -> str | None:
    """The nearest ``.stoker-lint.yaml`` from ``start`` (default: the cwd) upwards."""
    directory = os.path.abspath(start or os.getcwd())
    while True:
        candidate = os.path.join(directory, CONFIG_NAME)
        if os.path.isfile(candidate):
            return candidate
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def load_config(path: str) -> LintConfig:
    """Read a config file; ConfigError says what is wrong and where."""
    try:
        with open(path, "rb") as handle:
            document = load_document(handle.read(), path)
    except OSError as error:
        raise ConfigError(f"{path}: cannot read the config file: {error.strerror}") from None
    except TemplateError as error:
        raise ConfigError("; ".join(d.render() for d in error.diagnostics)) from None
    data = document.data
    base_dir = os.path.dirname(os.path.abspath(path))
    if data is None:
        return LintConfig(base_dir=base_dir, file=path)
    if not isinstance(data, dict):
        raise ConfigError(f"{span_of(data) or path}: the config file must be a mapping")
    for key in data:
        if key not in _KEYS:
            raise ConfigError(
                f"{key_span(data, key) or path}: unknown setting {key!r}; "
                f"the settings are: {', '.join(_KEYS)}"
            )
    profiles = tuple(
        _choice(Profile, item, data, "profiles") for item in _strings(data, "profiles")
    )
    per_path_data = data.get("per_path") or {}
    if not isinstance(per_path_data, dict):
        raise ConfigError(f"{value_span(data, 'per_path') or path}: per_path must be a mapping")
    per_path = tuple(
        (str(pattern), tuple(_strings(per_path_data, pattern))) for pattern in per_path_data
    )
    level = data.get("fail_level")
    return LintConfig(
        profiles=profiles or (Profile.DEFAULT,),
        ignore=tuple(_strings(data, "ignore")),
        per_path=per_path,
        fail_level=_choice(Severity, level, data, "fail_level") if level else Severity.ERROR,
        base_dir=base_dir,
        file=path,
        environments=_environments(data, base_dir, path),
    )


def _environments(
    data: dict[Any, Any], base_dir: str, path: str
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``environments``: each template (a path relative to the config file) with its
    environment files (the same), every one of which must exist."""
    section = data.get("environments") or {}
    if not isinstance(section, dict):
        where = value_span(data, "environments") or path
        raise ConfigError(f"{where}: environments must be a mapping of a template to its files")
    pairs = []
    for template in section:
        files = []
        for name in _strings(section, template):
            found = os.path.normpath(os.path.join(base_dir, name))
            if not os.path.isfile(found):
                where = value_span(section, template) or path
                raise ConfigError(f"{where}: environment file {name!r} not found ({found})")
            files.append(found)
        target = os.path.normpath(os.path.join(base_dir, str(template)))
        pairs.append((target, tuple(files)))
    return tuple(pairs)


def _strings(data: dict[Any, Any], key: Any) -> list[str]:
    value = data.get(key)
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{value_span(data, key)}: {key} must be a list of strings")
    return [str(item) for item in value]


def _choice(kind: Any, value: Any, data: dict[Any, Any], key: str) -> Any:
    try:
        return kind(str(value))
    except ValueError:
        allowed = ", ".join(member.value for member in kind)
        raise ConfigError(
            f"{value_span(data, key)}: {value!r} is not a valid {key} value; use one of: {allowed}"
        ) from None


def merge(
    config: LintConfig,
    *,
    profiles: tuple[str, ...] = (),
    ignore: tuple[str, ...] = (),
    fail_level: str | None = None,
) -> LintConfig:
    """The settings in force: command-line values over the file's, lists combined."""
    return replace(
        config,
        profiles=tuple(Profile(p) for p in profiles) or config.profiles,
        ignore=(*config.ignore, *ignore),
        fail_level=Severity(fail_level) if fail_level else config.fail_level,
    )
