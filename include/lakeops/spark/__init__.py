"""Code that runs Spark. It decides nothing: plans come from the pure modules."""
