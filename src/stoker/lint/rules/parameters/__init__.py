"""Rules about parameters."""
