"""Build a request's files map with the real python-heatclient (run by the reference venv).

    <reference venv>/bin/python heatclient_files.py TEMPLATE [ENV ...]

stoker's CLI stands for python-heatclient + Heat, so the recorder must send Heat what
heatclient would have sent: heatclient reads only the literal ``get_file`` paths (and
provider ``type: *.yaml`` paths) it finds, leaves computed ones out, and refuses before Heat
sees anything when a literal path cannot be read. This script calls heatclient's own
``template_utils`` (the functions ``openstack stack create`` calls) on the case written to
disk and prints, as JSON, ``{"files": {absolute path read: content as heatclient sends it}}``
or ``{"refused": message}``. heatclient rewrites what it sends: a nested template's
``get_file`` and provider paths become absolute ``file://`` URLs, so each is resolved
relative to the template that names it.
It runs under the reference Heat's interpreter (heatclient is not a dependency of stoker),
so it imports nothing from stoker or the tests.
"""

from __future__ import annotations

import json
import sys
from urllib.parse import urlparse

from heatclient.common import template_utils  # type: ignore[import-not-found]


def main(template: str, environments: list[str]) -> dict[str, object]:
    try:
        files, _ = template_utils.get_template_contents(template_file=template)
        env_files, _ = template_utils.process_multiple_environments_and_files(
            env_paths=environments, env_list_tracker=[]
        )
    except Exception as error:  # heatclient's CommandError: the user's refusal
        return {"refused": str(error), "type": type(error).__name__}
    read = {
        urlparse(url).path: text.decode() if isinstance(text, bytes) else text
        for url, text in {**files, **env_files}.items()
    }
    return {"files": dict(sorted(read.items()))}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2:])))
