"""Developer tools, run from a checkout (``python -m tools.NAME``); never installed, never writing into site-packages."""
