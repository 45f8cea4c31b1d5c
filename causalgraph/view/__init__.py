"""The interactive page of a solved topic (pyvis data, our own template)."""
