"""Rules about conditions."""
