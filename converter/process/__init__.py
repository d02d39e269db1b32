"""Child processes: isolation, a fresh interpreter with a timeout, the signal handling."""
