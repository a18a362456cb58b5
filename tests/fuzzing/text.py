"""Mutations of a file's bytes: truncation, flipped bits, random and invalid UTF-8 bytes,
YAML syntax thrown in, lines duplicated, dropped or re-indented."""

from __future__ import annotations

import random

_SYNTAX = (
    b"&a ",
    b"*a",
    b"<<: *a\n",
    b"!!python/object:os.system ",
    b"!!binary ",
    b"!!int ",
    b"!!float ",
    b"!!map ",
    b"!foo ",
    b"%YAML 1.1\n---\n",
    b"---\n",
    b"...\n",
    b"{",
    b"}",
    b"[",
    b"]",
    b": ",
    b"- ",
    b"? ",
    b"\t",
    b"\x00",
    b"\xef\xbb\xbf",
    b'"',
    b"'",
    b"|",
    b">",
    b"#",
    b"\\u0000",
    b"1e99999",
    b"9" * 5000,
)


def _position(rng: random.Random, text: bytes) -> int:
    return rng.randrange(len(text) + 1)


def truncate(rng: random.Random, text: bytes) -> tuple[bytes, str]:
    at = _position(rng, text)
    return text[:at], f"truncated at {at}"


def flip_bytes(rng: random.Random, text: bytes) -> tuple[bytes, str]:
    if not text:
        return text, "empty"
    data = bytearray(text)
    for _ in range(rng.randrange(1, 4)):
        at = rng.randrange(len(data))
        data[at] ^= 1 << rng.randrange(8)
    return bytes(data), "flipped bytes"


def random_bytes(rng: random.Random, text: bytes) -> tuple[bytes, str]:
    at = _position(rng, text)
    noise = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 9)))
    return text[:at] + noise + text[at:], f"random bytes at {at}"


def invalid_utf8(rng: random.Random, text: bytes) -> tuple[bytes, str]:
    at = _position(rng, text)
    bad = rng.choice((b"\xff", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\xc0\xaf", b"\x80"))
    return text[:at] + bad + text[at:], f"invalid UTF-8 at {at}"


def yaml_syntax(rng: random.Random, text: bytes) -> tuple[bytes, str]:
    at = _position(rng, text)
    piece = rng.choice(_SYNTAX)
    return text[:at] + piece + text[at:], f"inserted {piece[:20]!r} at {at}"


def shuffle_lines(rng: random.Random, text: bytes) -> tuple[bytes, str]:
    lines = text.split(b"\n")
    if len(lines) < 2:
        return text, "one line"
    index = rng.randrange(len(lines))
    action = rng.randrange(4)
    if action == 0:
        lines.insert(index, lines[index])
        what = "duplicated"
    elif action == 1:
        del lines[index]
        what = "dropped"
    elif action == 2:
        lines[index] = b" " * rng.randrange(1, 4) + lines[index]
        what = "indented"
    else:
        lines[index] = lines[index].lstrip()
        what = "dedented"
    return b"\n".join(lines), f"{what} line {index + 1}"


TEXTUAL = (
    truncate,
    flip_bytes,
    random_bytes,
    invalid_utf8,
    yaml_syntax,
    yaml_syntax,
    shuffle_lines,
)
