"""Why one resource waits for another: the reasons an edge of the dependency graph has.

The walks that find the edges (`stoker.definition.stack`, `stoker.definition.graph`,
`stoker.definition.implied_dependencies`) set these bits as they go, so a view of the
graph (``stoker stack graph``) labels each edge from the engine's own computation.
"""

from __future__ import annotations

from enum import IntFlag


class EdgeReason(IntFlag):
    """What makes ``a`` wait for ``b``; an edge may have several reasons."""

    DEPENDS_ON = 1  # b in a's depends_on
    GET_RESOURCE = 2  # get_resource / Ref of b in a's properties or metadata
    GET_ATTR = 4  # get_attr / Fn::GetAtt of b
    IMPLIED = 8  # added by a Neutron type's rule (`stoker.definition.implied_dependencies`)


#: the bits as plain ints, which the walks set: an IntFlag's ``|`` runs Python code per edge
DEPENDS_ON = EdgeReason.DEPENDS_ON.value
GET_RESOURCE = EdgeReason.GET_RESOURCE.value
GET_ATTR = EdgeReason.GET_ATTR.value
IMPLIED = EdgeReason.IMPLIED.value
