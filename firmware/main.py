"""The Pico runs this at power-up (copied to the board's root as ``main.py``)."""

from firmware.pico import main

main()
