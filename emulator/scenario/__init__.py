"""Scenario files: schema, units, loading with field-path errors, and building networks from them."""
