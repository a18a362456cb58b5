"""OpenStack's own Heat API tests against `stoker serve` (README.md)."""
