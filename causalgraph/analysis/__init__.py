"""Stage 4, analysis: a topic's graph, document evidence and pair features (`analyse_topic`), cached on disk."""
