"""Resource types: the plugin interface, property and attribute schemas, Heat's catalog of
types, the registry of the types stoker can run, and the built-in cloud-free types.

Importing this package registers nothing: build a registry with
`stoker.resources.registry.default_registry`.

Other packages import these names from here, never from the modules (import-linter's
"protected" contract in pyproject.toml). Each is imported from its module on first use
(`stoker.lazy.names_from`): importing the package loads none of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stoker.lazy import names_from

if TYPE_CHECKING:
    from stoker.resources.base import ResourceContext, ResourceFailure, ResourcePlugin, ResourceView
    from stoker.resources.catalog import (
        TypeSchema,
        catalog_schema,
        heat_catalog,
        heat_knows,
        load_document,
        property_renames,
        stock_alias,
        type_schema_from_entry,
    )
    from stoker.resources.nested import (
        ChildSpec,
        ChildStack,
        InlineStack,
        MemberAttributes,
        NestedStackPlugin,
        ResourceChain,
        ResourceGroup,
        TemplateResource,
    )
    from stoker.resources.openstack import TYPES
    from stoker.resources.openstack import register as register_openstack
    from stoker.resources.openstack.base import CloudResource
    from stoker.resources.openstack.drift import irreversible as irreversible_drift
    from stoker.resources.openstack.readback import Gone as ResourceGone
    from stoker.resources.openstack.readback import Outcome as ReadbackOutcome
    from stoker.resources.openstack.readback import read as read_back
    from stoker.resources.registry import ResourceTypeRegistry, default_registry
    from stoker.resources.schema import (
        LIST_ITEMS,
        PropertySchema,
        PropertyType,
        SupportLevel,
        SupportStatus,
        validate_properties,
    )

_WHERE = {
    "ChildSpec": "stoker.resources.nested",
    "ChildStack": "stoker.resources.nested",
    "CloudResource": "stoker.resources.openstack.base",
    "InlineStack": "stoker.resources.nested",
    "LIST_ITEMS": "stoker.resources.schema",
    "MemberAttributes": "stoker.resources.nested",
    "NestedStackPlugin": "stoker.resources.nested",
    "PropertySchema": "stoker.resources.schema",
    "PropertyType": "stoker.resources.schema",
    "ReadbackOutcome": "stoker.resources.openstack.readback:Outcome",
    "ResourceChain": "stoker.resources.nested",
    "ResourceContext": "stoker.resources.base",
    "ResourceFailure": "stoker.resources.base",
    "ResourceGone": "stoker.resources.openstack.readback:Gone",
    "ResourceGroup": "stoker.resources.nested",
    "ResourcePlugin": "stoker.resources.base",
    "ResourceTypeRegistry": "stoker.resources.registry",
    "ResourceView": "stoker.resources.base",
    "SupportLevel": "stoker.resources.schema",
    "SupportStatus": "stoker.resources.schema",
    "TYPES": "stoker.resources.openstack",
    "TemplateResource": "stoker.resources.nested",
    "TypeSchema": "stoker.resources.catalog",
    "catalog_schema": "stoker.resources.catalog",
    "default_registry": "stoker.resources.registry",
    "heat_catalog": "stoker.resources.catalog",
    "heat_knows": "stoker.resources.catalog",
    "irreversible_drift": "stoker.resources.openstack.drift:irreversible",
    "load_document": "stoker.resources.catalog",
    "property_renames": "stoker.resources.catalog",
    "read_back": "stoker.resources.openstack.readback:read",
    "register_openstack": "stoker.resources.openstack:register",
    "stock_alias": "stoker.resources.catalog",
    "type_schema_from_entry": "stoker.resources.catalog",
    "validate_properties": "stoker.resources.schema",
}

__all__ = [
    "ChildSpec",
    "ChildStack",
    "CloudResource",
    "InlineStack",
    "LIST_ITEMS",
    "MemberAttributes",
    "NestedStackPlugin",
    "PropertySchema",
    "PropertyType",
    "ReadbackOutcome",
    "ResourceChain",
    "ResourceContext",
    "ResourceFailure",
    "ResourceGone",
    "ResourceGroup",
    "ResourcePlugin",
    "ResourceTypeRegistry",
    "ResourceView",
    "SupportLevel",
    "SupportStatus",
    "TYPES",
    "TemplateResource",
    "TypeSchema",
    "catalog_schema",
    "default_registry",
    "heat_catalog",
    "heat_knows",
    "irreversible_drift",
    "load_document",
    "property_renames",
    "read_back",
    "register_openstack",
    "stock_alias",
    "type_schema_from_entry",
    "validate_properties",
]

__getattr__ = names_from(__name__, _WHERE)
