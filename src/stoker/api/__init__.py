"""Heat's REST API v1 over the library (``stoker serve``).

The handlers only parse a request, call the engine's facade and return the library's
Heat-shaped views (`stoker.engine`'s `stack_views`, `resource_views`, `event_views`) with
the links a REST client follows.
Operations run as in Heat: the request records the operation and returns; the server's
workers (`stoker.api.operations`) run it, and take over the operations of a server that
died, through the engine's leases.
"""
