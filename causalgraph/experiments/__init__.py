"""Stage 8, experiments: measurements made by folding topics (the rule ablation, readers and their fusion, the
timeline, the pair model, size curves); each takes plain arguments and returns its figures, and the commands
print them."""
