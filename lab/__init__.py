"""The lab: what measured the shipped choices (and the variants that were not shipped), apart from the package,
which never imports it (tests/test_layout.py). Every script runs from the repository root as
`python -m lab.SUBJECT.NAME ...`; its docstring says what it measures, and BENCHMARKS.md and docs/lab/ hold
its figures. `common.py` holds what the scripts share.

- readers/: readers fused with the edge scores (real systems' answers, simulated readers, a user's own topic)
- reader_of_statements/: the trained reader of causal statements (causalgraph.read): variants, int8, a baseline
- scorer/: the edge scorer's variants, the size curve, the document evidence, sentence encoders, the pair model
- solver/: the answer set program: solve times, a directness rule group, the confidence, the documents' timeline
- speed/: the time and memory of `answer` on a split, and of hostile inputs
- user/: the scorer of a user's own topics and the statements it reads
"""
