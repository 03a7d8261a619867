"""Copied to the board's root as ``boot.py``: runs before USB is up and before main.py."""
