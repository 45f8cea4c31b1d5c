"""Stage 10, view: the interactive page of a solved topic (pyvis data, our own template)."""
