"""Side-by-side measurements, one per capability. Run one with `python -m benchmarks NAME`
(`make bench-NAME`); `--quick` runs it at a size that finishes in a few minutes. Reports and plots
go to benchmarks/results/; docs/benchmarks.md shows the figures."""
