"""The scorer of a user's own topics (`--priors none`): its features, variants, the statements it reads and a local
LLM as a reader of statements (docs/lab/user.md)."""
