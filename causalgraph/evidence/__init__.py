"""The evidence stage: what the documents say about a topic's events and candidate pairs, in one place: the
sentences retrieved for each event, the evidence feature groups of each pair with the sentences they were read
from, and the documents' timeline (dated order and causal edges)."""
