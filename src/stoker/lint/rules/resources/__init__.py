"""Rules about resources and their types."""
