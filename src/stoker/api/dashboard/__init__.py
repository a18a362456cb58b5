"""The web dashboard of ``stoker serve`` (``/dashboard``), beside Heat's API on the same
port and behind the same authentication: server-rendered pages (Jinja2 templates, the
project's own small stylesheet, a little script only where a page follows a running
operation), over the same library calls as the API's handlers.

Its handlers (`stacks`, `changes`, `launch`, `login`) only read a request, call the
library and render; the routes are listed with the API's (`stoker.api.app.routes`), and
each handler module is imported on its first request, as the API's are.
"""
