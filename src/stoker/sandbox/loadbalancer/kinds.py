"""The kinds of Octavia objects the sandbox keeps, and how Octavia names each."""

from __future__ import annotations

LOADBALANCER = "load-balancer.loadbalancer"
LISTENER = "load-balancer.listener"
POOL = "load-balancer.pool"
MEMBER = "load-balancer.member"
MONITOR = "load-balancer.healthmonitor"
L7POLICY = "load-balancer.l7policy"
L7RULE = "load-balancer.l7rule"
#: every kind, parents first
KINDS = (LOADBALANCER, LISTENER, POOL, MEMBER, MONITOR, L7POLICY, L7RULE)
#: in Octavia's messages ("Pool X not found.")
LABELS = {
    LOADBALANCER: "Load Balancer",
    LISTENER: "Listener",
    POOL: "Pool",
    MEMBER: "Member",
    MONITOR: "Health Monitor",
    L7POLICY: "L7 Policy",
    L7RULE: "L7 Rule",
}
