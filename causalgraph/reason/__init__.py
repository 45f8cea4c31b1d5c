"""The reason stage: typed ASP facts of a topic, the rule groups in rules/, clingo's optimal answer set, and the
explanations read from it."""
