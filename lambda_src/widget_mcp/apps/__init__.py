"""Reference apps built with the toolkit. Each exposes a `ToolBook`."""
