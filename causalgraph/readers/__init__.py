"""The readers stage: per-option judges of "this option directly caused the target" (another system's answers
or probabilities, an LLM endpoint), whose judgements the answer set program fuses with the edge scorer's."""
