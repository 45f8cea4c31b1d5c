"""Stage 9, run: answering many topics (analysis, scoring, solving) serially, in processes or on Dask, and
writing the outputs atomically."""
