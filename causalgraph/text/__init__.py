"""Stage 2, text: spaCy over the documents (sentences, dates, causal and temporal cues), sentence encoders,
and the evidence sentences retrieved for each event."""
