"""Chess reference app."""
