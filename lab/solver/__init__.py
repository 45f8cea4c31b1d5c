"""The answer set program: solve times, a directness rule group, the confidence, and the documents' timeline
(docs/lab/solver.md, docs/rules.md)."""
