"""Stage 6, reason: typed ASP facts of a topic, the rule groups in rules/, clingo's optimal answer set, and the
explanations read from it."""
