"""The command line's readable summaries: pure functions from a command's JSON document to text."""
