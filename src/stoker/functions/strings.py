"""TEMPORARY SHELL: to be implemented by the functions work."""

from typing import Any

from stoker.functions.base import Function


class Base64(Function):
    def __init__(self, name: str, args: Any, **kwargs: Any) -> None:
        options = {k: kwargs.pop(k) for k in list(kwargs) if k not in ("path", "span", "version")}
        super().__init__(name, args, **kwargs)
        self.options = options


class CfnJoin(Function):
    def __init__(self, name: str, args: Any, **kwargs: Any) -> None:
        options = {k: kwargs.pop(k) for k in list(kwargs) if k not in ("path", "span", "version")}
        super().__init__(name, args, **kwargs)
        self.options = options


class CfnReplace(Function):
    def __init__(self, name: str, args: Any, **kwargs: Any) -> None:
        options = {k: kwargs.pop(k) for k in list(kwargs) if k not in ("path", "span", "version")}
        super().__init__(name, args, **kwargs)
        self.options = options


class CfnSplit(Function):
    def __init__(self, name: str, args: Any, **kwargs: Any) -> None:
        options = {k: kwargs.pop(k) for k in list(kwargs) if k not in ("path", "span", "version")}
        super().__init__(name, args, **kwargs)
        self.options = options


class Digest(Function):
    def __init__(self, name: str, args: Any, **kwargs: Any) -> None:
        options = {k: kwargs.pop(k) for k in list(kwargs) if k not in ("path", "span", "version")}
        super().__init__(name, args, **kwargs)
        self.options = options


class ListJoin(Function):
    def __init__(self, name: str, args: Any, **kwargs: Any) -> None:
        options = {k: kwargs.pop(k) for k in list(kwargs) if k not in ("path", "span", "version")}
        super().__init__(name, args, **kwargs)
        self.options = options


class StrReplace(Function):
    def __init__(self, name: str, args: Any, **kwargs: Any) -> None:
        options = {k: kwargs.pop(k) for k in list(kwargs) if k not in ("path", "span", "version")}
        super().__init__(name, args, **kwargs)
        self.options = options


class StrSplit(Function):
    def __init__(self, name: str, args: Any, **kwargs: Any) -> None:
        options = {k: kwargs.pop(k) for k in list(kwargs) if k not in ("path", "span", "version")}
        super().__init__(name, args, **kwargs)
        self.options = options
