"""A template's text outside its resources cut into parts, and which of them a resource
reads: a change there re-checks only the resources that read what changed
(`stoker.definition.Reuse`).

A resource's results (its parsed entry, its validated calls, its known values, its
findings) depend on its own text and on what it reads of the rest of the template. Of
the sections around the resources, a HOT resource reads a parameter through
``get_param`` (its declaration, its default, its type) and the conditions through its
``condition`` or an ``if``; no resource reads the description, the parameter groups or
the outputs. What the other resources' names, types and conditions' values are, and
which parameters are hidden, each stage compares itself (its context). So the text
outside the resources is cut into parts (`Outside`): each parameter's lines, the
conditions section, the sections no resource reads, and the rest (the version line,
comments above it, the ``resources:`` line and the ``parameters:`` line, any other
section): a change to the rest re-checks everything, as before.

Anything this reading cannot be sure of leaves the whole text in the rest: a template
that is not HOT, a section in flow style, a line at an unexpected indentation, a key
given twice. What a resource reads is found from the nodes the last check loaded of its
(unchanged) text, and errs on the side of reading: a parameter is read by every resource
whose text has its name anywhere, every parameter by a resource with a ``get_param``
whose name is not written out (computed by a function), and the conditions by a resource
with the word ``condition`` or ``if`` anywhere. A part that lies below the resources
carries its line too: an edit below the resources moves it but no resource, and a
resource's results could point at it.

The cut is checked against the parsed template (`agrees`): a quoted scalar running over
lines can make a line look like a key it is not.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Hashable, Mapping
from typing import Any, NamedTuple

from stoker.lsp.blocks import Blocks, LoadedBlock, block_names
from stoker.template.nodes import MappingNode

#: the parts no resource reads
UNREAD = frozenset({"description", "parameter_groups", "outputs"})
CONDITIONS = "conditions"
#: a parameter's part is this prefix and its name
PARAMETER = "parameters/"

#: a top-level key, and what follows it on its line
_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*):(?:[ \t]|$)(.*)")
_CONDITIONAL = re.compile(r"\b(?:condition|if)\b")


class Outside(NamedTuple):
    """``shared``: the parts some resources read and the parts none reads (name -> its
    text, and its line when below the resources); ``rest``: everything else, compared
    as a whole; ``sections``: each top-level key cut, and its line (1-based);
    ``parameters``: each parameter cut, and its line."""

    shared: dict[str, Hashable]
    rest: Hashable
    sections: tuple[tuple[str, int], ...]
    parameters: tuple[tuple[str, int], ...]


def outside_parts(text: str, blocks: Blocks) -> Outside:
    """The text of ``text`` outside the resources of ``blocks``, cut into parts."""
    whole = Outside({}, blocks.outside, (), ())
    if not blocks.resources:
        return whole
    # the blocks are in the text's order, and the text outside them is the lines above
    # the first and those below the last
    first = next(iter(blocks.resources.values()))[0]
    lines = blocks.outside.split("\n")
    last = first + text.count("\n") - blocks.outside.count("\n")
    above, below = lines[:first], lines[first:]
    shared: dict[str, Hashable] = {}
    rest: list[Hashable] = []
    sections: list[tuple[str, int]] = []
    parameters: list[tuple[str, int]] = []
    hot = False
    for region, start in ((above, 0), (below, last)):
        cuts = [at for at, line in enumerate(region) if line[:1] not in ("", " ", "#")]
        prelude = "\n".join(region[: cuts[0] if cuts else len(region)])
        rest.append((prelude, start if start and prelude else None))
        for index, at in enumerate(cuts):
            until = cuts[index + 1] if index + 1 < len(cuts) else len(region)
            section = region[at:until]
            found = _KEY.match(section[0])
            key = found[1] if found is not None else None
            if key is None or any(key == seen for seen, _ in sections):
                return whole  # a key in flow style, quoted, given twice: not read here
            sections.append((key, start + at + 1))
            where = start + at if start else None  # below the resources: its line
            if key == "heat_template_version":
                hot = True
            if key in UNREAD or key == CONDITIONS:
                shared[key] = ("\n".join(section), where)
            elif key == "parameters":
                bare = found is not None and _bare(found[2])
                cut = _parameters(section, start + at) if bare else None
                if cut is None:
                    return whole
                # the lines above the first parameter are blank or comments
                rest.append((section[0], where))
                for name, (line, lines_of) in cut.items():
                    shared[PARAMETER + name] = (lines_of, line if start else None)
                    parameters.append((name, line + 1))
            elif key == "resources" and start == 0 and at + len(section) == len(region):
                # the lines below it, above the first resource, are blank or comments
                rest.append((section[0], None))
            else:
                rest.append(("\n".join(section), where))
    if not hot:
        return whole
    return Outside(shared, tuple(rest), tuple(sections), tuple(parameters))


def _bare(after: str) -> bool:
    """Whether what follows a key on its line is nothing or a comment (the value is
    below, in block style)."""
    after = after.strip()
    return not after or after.startswith("#")


def _parameters(section: list[str], at: int) -> dict[str, tuple[int, str]] | None:
    """Each parameter's first line (0-based) and lines (from its name to the next
    name); None when the section is not block style at one indentation."""
    body = "\n".join(section[1:])
    names = block_names(body, 0, len(body))
    if names is None:
        return None
    named: dict[str, tuple[int, str]] = {}
    for index, (name, _, number) in enumerate(names):  # lines of ``section[1:]``
        until = names[index + 1][2] + 1 if index + 1 < len(names) else len(section)
        named[name] = (at + number + 1, "\n".join(section[number + 1 : until]))
    return named


def agrees(outside: Outside, data: Any) -> bool:
    """Whether the parsed document has exactly the top-level keys and parameters the cut
    found, each at its line."""
    if not outside.sections:
        return True  # nothing was cut
    if not isinstance(data, MappingNode):
        return False
    top = {name: span.line for name, span in data.key_spans.items() if name != "resources"}
    if top != {name: line for name, line in outside.sections if name != "resources"}:
        return False
    section = data.get("parameters")
    if not outside.parameters:
        return not isinstance(section, MappingNode) or not section
    if not isinstance(section, MappingNode):
        return False
    found = {name: span.line for name, span in section.key_spans.items()}
    return found == dict(outside.parameters)


class Readers:
    """Which resources read a changed part, from the nodes the last check loaded of each
    resource's text (`stoker.lsp.blocks.LoadedBlock`)."""

    def __init__(self, blocks: Blocks, loaded: Mapping[str, LoadedBlock]) -> None:
        self.blocks = blocks
        self.loaded = loaded

    def __call__(self, resource: str, changed: Collection[str]) -> bool:
        """Whether ``resource`` (its text unchanged) reads one of the ``changed`` parts."""
        text = self.blocks.resources[resource][1]
        names = {name[len(PARAMETER) :] for name in changed if name.startswith(PARAMETER)}
        conditions = CONDITIONS in changed
        if not names and not conditions:
            return False  # only parts no resource reads
        if conditions and _CONDITIONAL.search(text):
            return True
        if any(name in text for name in names):
            return True
        # a key or a name written with escapes or doubled quotes, or a name with spaces
        # (which a scalar folded over lines has) is not in the text as it reads: the
        # nodes say; a get_param whose name is computed reads every parameter
        written = "\\" not in text and "''" not in text
        plain = written and all(len(name.split()) == 1 for name in names)
        if plain and (not names or "get_param" not in text):
            return False
        block = self.loaded.get(resource)
        if block is None or block.source[1] != text:
            return True  # its nodes are not at hand: read as reading everything
        return _reads(block.value, names, conditions)


def _reads(value: Any, names: Collection[str], conditions: bool) -> bool:
    """Whether ``value`` has a ``get_param`` of one of ``names`` or whose name is not
    written out, or (``conditions``) a ``condition`` or an ``if``."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if conditions and ("condition" in item or "if" in item):
                return True
            if "get_param" in item:
                args = item["get_param"]
                name = args[0] if isinstance(args, list) and args else args
                if not isinstance(name, str) or name in names:
                    return True
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False
