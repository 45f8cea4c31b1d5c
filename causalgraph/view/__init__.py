"""The view stage: the interactive page of a solved topic (pyvis data, our own template)."""
