"""Rules about the template as a whole."""
