"""Resource types: the plugin interface, property and attribute schemas, Heat's catalog of
types, the registry of the types stoker can run, and the built-in cloud-free types.

Importing this package registers nothing: build a registry with
`stoker.resources.registry.default_registry`.
"""
