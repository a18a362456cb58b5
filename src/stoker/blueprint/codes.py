"""Stable codes of the findings about blueprints (`stoker.blueprint`).

B codes, kept apart from `stoker.codes`, whose codes are the template core's and each a
lint rule: a blueprint is not a template the linter reads, so these are not rules. Keep
a code's meaning fixed once it has shipped.
"""

from __future__ import annotations

BLUEPRINT_SHAPE = "B0001"  # a blueprint, component or requirement of the wrong shape
BLUEPRINT_TYPE = "B0002"  # a component type that is unknown, or cannot be inferred
BLUEPRINT_UNFULFILLED = "B0003"  # no candidate fulfils a requirement
BLUEPRINT_AMBIGUOUS = "B0004"  # several candidates fulfil a requirement
BLUEPRINT_CYCLE = "B0005"  # requirements that go round in circles
BLUEPRINT_LIBRARY = "B0006"  # a library template whose capabilities cannot be used
BLUEPRINT_CLOUD = "B0007"  # a requirement the cloud cannot meet (flavor, image, zone)
