"""The analysis stage: a topic's graph, document evidence and pair feature table (`analyse_topic`), with the
documents' readings and the topics' analyses cached on disk."""
