"""The spark-submit entry points, shipped inside the package so an installed lakeops never needs a
checkout: one module per job, each with `main(argv) -> int` and a `__main__` guard.

spark-submit needs a file path, not a module name: `lakeops.runtime.spark_job_path(name)` gives the
path of `lakeops/jobs/<name>.py` wherever the package is installed. The checkout's `spark_jobs/`
holds thin files over these modules for submitting by hand.
"""
