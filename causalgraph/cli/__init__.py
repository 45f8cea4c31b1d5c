"""The command-line tools, one module per command; `causalgraph COMMAND` and `python -m causalgraph.COMMAND`
run them."""
