"""The text stage: spaCy over each document (sentences, the dates they state, causal and temporal cues),
dates, words and sentence encoders."""
