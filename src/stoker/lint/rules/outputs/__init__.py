"""Rules about outputs."""
