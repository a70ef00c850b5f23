"""Side-by-side measurements. Each benchmark is a module run by `make bench-<name>`
(python -m benchmarks.<name>); it prints a results table and writes it, with its plots,
under benchmarks/results/."""
