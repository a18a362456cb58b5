"""ONAP's VNF Heat template requirements: the requirement list, package layout, and rules."""
