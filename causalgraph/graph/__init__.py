"""The graph stage: one networkx graph per topic (a node per distinct event text, an edge per candidate cause)
and the question-structure features of its candidate edges."""
