"""TEMPORARY SHELL: to be implemented by the functions work."""

from typing import Any

from stoker.functions.base import Function


class Contains(Function):
    def __init__(self, name: str, args: Any, **kwargs: Any) -> None:
        options = {k: kwargs.pop(k) for k in list(kwargs) if k not in ("path", "span", "version")}
        super().__init__(name, args, **kwargs)
        self.options = options


class Filter(Function):
    def __init__(self, name: str, args: Any, **kwargs: Any) -> None:
        options = {k: kwargs.pop(k) for k in list(kwargs) if k not in ("path", "span", "version")}
        super().__init__(name, args, **kwargs)
        self.options = options


class FindInMap(Function):
    def __init__(self, name: str, args: Any, **kwargs: Any) -> None:
        options = {k: kwargs.pop(k) for k in list(kwargs) if k not in ("path", "span", "version")}
        super().__init__(name, args, **kwargs)
        self.options = options


class ListConcat(Function):
    def __init__(self, name: str, args: Any, **kwargs: Any) -> None:
        options = {k: kwargs.pop(k) for k in list(kwargs) if k not in ("path", "span", "version")}
        super().__init__(name, args, **kwargs)
        self.options = options


class MapMerge(Function):
    def __init__(self, name: str, args: Any, **kwargs: Any) -> None:
        options = {k: kwargs.pop(k) for k in list(kwargs) if k not in ("path", "span", "version")}
        super().__init__(name, args, **kwargs)
        self.options = options


class MapReplace(Function):
    def __init__(self, name: str, args: Any, **kwargs: Any) -> None:
        options = {k: kwargs.pop(k) for k in list(kwargs) if k not in ("path", "span", "version")}
        super().__init__(name, args, **kwargs)
        self.options = options


class MemberListToMap(Function):
    def __init__(self, name: str, args: Any, **kwargs: Any) -> None:
        options = {k: kwargs.pop(k) for k in list(kwargs) if k not in ("path", "span", "version")}
        super().__init__(name, args, **kwargs)
        self.options = options


class Repeat(Function):
    def __init__(self, name: str, args: Any, **kwargs: Any) -> None:
        options = {k: kwargs.pop(k) for k in list(kwargs) if k not in ("path", "span", "version")}
        super().__init__(name, args, **kwargs)
        self.options = options


class Select(Function):
    def __init__(self, name: str, args: Any, **kwargs: Any) -> None:
        options = {k: kwargs.pop(k) for k in list(kwargs) if k not in ("path", "span", "version")}
        super().__init__(name, args, **kwargs)
        self.options = options
