"""The stack engine: operations as traversals of the dependency graph, durable state first."""
