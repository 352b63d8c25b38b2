"""Systems under test: one small module per kind."""
