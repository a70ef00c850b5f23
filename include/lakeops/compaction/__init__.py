"""Threshold-triggered compaction: a pure planner (plan.py) and the Spark runner that executes its actions."""
