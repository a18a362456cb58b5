"""``python -m stoker.schema [DIRECTORY]``: regenerate the committed schemas (``schemas/``)."""

import sys

from stoker.schema import SCHEMA_DIRECTORY, write_schemas

for path in write_schemas(sys.argv[1] if len(sys.argv) > 1 else SCHEMA_DIRECTORY):
    print(path)
