"""JSON Schemas of HOT templates and environment files, for editors and other tools.

    schema = template_schema(hot("2021-04-16"))    # draft 2020-12, as a dict
    files = committed_schemas()                     # what schemas/ holds, by file name

``python -m stoker.schema [DIRECTORY]`` writes `committed_schemas` (``schemas/`` by
default); ``stoker schema template|environment`` prints one.
"""

from stoker.schema.functions import condition_names, function_names, signature
from stoker.schema.properties import describe_property, describe_type
from stoker.schema.template import (
    ENVIRONMENT_FILE,
    SCHEMA_DIRECTORY,
    committed_schemas,
    environment_schema,
    file_name,
    render,
    template_schema,
    write_schemas,
)

__all__ = [
    "ENVIRONMENT_FILE",
    "SCHEMA_DIRECTORY",
    "committed_schemas",
    "condition_names",
    "describe_property",
    "describe_type",
    "environment_schema",
    "file_name",
    "function_names",
    "render",
    "signature",
    "template_schema",
    "write_schemas",
]
