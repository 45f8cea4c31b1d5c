"""The trained reader of causal statements (causalgraph.read): a training variant on one fold, the int8 build
against float, and the connective reader as a baseline."""
