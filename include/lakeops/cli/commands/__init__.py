"""One module per command group. Each is thin: it resolves the table, calls the library code the DAG tasks
call (or spark-submits the job they submit) and hands a JSON-ready document to lakeops.cli.render."""
