"""The run stage: answering many topics (analysis, scoring, solving) serially, in processes or on Dask, and
writing the outputs atomically."""
