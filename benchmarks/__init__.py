"""Benchmarks: every figure is a ratio taken side by side in one run (see README, "Performance")."""
