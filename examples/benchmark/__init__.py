"""The algorithms head-to-head behind examples/benchmark_algorithms.py (its entry point and flags)."""
