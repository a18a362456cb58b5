"""TEMPORARY SHELL: to be implemented by the functions work."""

from typing import Any

from stoker.functions.base import Function


class And(Function):
    def __init__(self, name: str, args: Any, **kwargs: Any) -> None:
        options = {k: kwargs.pop(k) for k in list(kwargs) if k not in ("path", "span", "version")}
        super().__init__(name, args, **kwargs)
        self.options = options


class Equals(Function):
    def __init__(self, name: str, args: Any, **kwargs: Any) -> None:
        options = {k: kwargs.pop(k) for k in list(kwargs) if k not in ("path", "span", "version")}
        super().__init__(name, args, **kwargs)
        self.options = options


class If(Function):
    def __init__(self, name: str, args: Any, **kwargs: Any) -> None:
        options = {k: kwargs.pop(k) for k in list(kwargs) if k not in ("path", "span", "version")}
        super().__init__(name, args, **kwargs)
        self.options = options


class Not(Function):
    def __init__(self, name: str, args: Any, **kwargs: Any) -> None:
        options = {k: kwargs.pop(k) for k in list(kwargs) if k not in ("path", "span", "version")}
        super().__init__(name, args, **kwargs)
        self.options = options


class Or(Function):
    def __init__(self, name: str, args: Any, **kwargs: Any) -> None:
        options = {k: kwargs.pop(k) for k in list(kwargs) if k not in ("path", "span", "version")}
        super().__init__(name, args, **kwargs)
        self.options = options
