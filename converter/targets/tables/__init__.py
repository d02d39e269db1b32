"""Capability tables as data (JSON), each naming its source, and the scripts that regenerate them."""
