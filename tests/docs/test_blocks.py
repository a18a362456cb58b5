"""How the docs test reads a page: which blocks run, and what their markers say."""

from __future__ import annotations

import pytest

from .blocks import MarkerError, blocks_of

PAGE = """# A page

```sh
stoker stack list
```

<!-- doctest: skip: needs a real Keystone -->
```bash
openstack token issue
```

<!-- doctest: sandbox, slow -->
```shell
stoker sandbox serve --port 8788 &
```

```yaml
heat_template_version: wallaby
```

- a list item:

  <!-- doctest: serve -->
  ```console
  $ openstack stack list \\
      --long
  +----+
  $ echo done
  done
  ```
"""


def test_every_shell_block_is_found_with_its_marker() -> None:
    blocks = blocks_of("docs/page.md", PAGE)
    assert [(b.line, b.language) for b in blocks] == [
        (3, "sh"), (8, "bash"), (13, "shell"), (24, "console")
    ]  # fmt: skip
    plain, skipped, slow, console = blocks
    assert plain.script == "stoker stack list\n" and plain.skip is None and not plain.slow
    assert skipped.skip == "needs a real Keystone"
    assert slow.slow and slow.sandbox and not slow.serve
    assert console.serve
    assert console.script == "openstack stack list \\\n    --long\necho done\n"


def test_unmarked_benchmarks_are_slow() -> None:
    (block,) = blocks_of("docs/benchmarks.md", "```sh\n.venv/bin/python benchmarks/cli.py\n```\n")
    assert block.slow
    (block,) = blocks_of("docs/other.md", "```sh\n.venv/bin/python benchmarks/cli.py\n```\n")
    assert not block.slow


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("<!-- doctest: slwo -->\n```sh\nls\n```\n", "unknown doctest marker 'slwo'"),
        ("<!-- doctest: skip -->\n```sh\nls\n```\n", "`skip` needs a reason"),
        ("<!-- doctest: slow -->\n\n```sh\nls\n```\n", "just before"),
        ("<!-- doctest: slow -->\n```yaml\na: 1\n```\n", "just before"),
        ("```\nstoker stack list\n```\n", "without a language"),
    ],
)
def test_a_marker_or_block_the_runner_cannot_take_is_an_error(text: str, message: str) -> None:
    with pytest.raises(MarkerError, match=message):
        blocks_of("README.md", text)


def test_a_text_block_is_reference_not_a_command() -> None:
    assert blocks_of("README.md", "```text\nstoker stack show NAME\n```\n") == []
