"""TEMPORARY SHELL: to be implemented by the functions work."""

from typing import Any

from stoker.functions.base import Function


class Yaql(Function):
    def __init__(self, name: str, args: Any, **kwargs: Any) -> None:
        options = {k: kwargs.pop(k) for k in list(kwargs) if k not in ("path", "span", "version")}
        super().__init__(name, args, **kwargs)
        self.options = options
