"""The spec pipeline: a spec loaded, lowered, legalized for a target, run and compared."""
