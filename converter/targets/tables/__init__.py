"""Capability tables as data (JSON), each naming its source; the scripts that regenerate them are in tools/ of a checkout."""
