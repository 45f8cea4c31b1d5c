"""causalgraph: a neuro-symbolic causal graph reasoner for abductive event reasoning (SemEval-2026 Task 12)."""

__version__ = "0.1.0"
