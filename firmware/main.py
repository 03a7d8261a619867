"""The Pico runs this at power-up (copied to the board's root as ``main.py``).

Ctrl-C goes off first: every host ``hello`` carries byte 0x03 (a COBS code byte), which
MicroPython takes as Ctrl-C while this file runs, and a running Pi says hello every 200 ms to a
board that resets. Then the watchdog, before the firmware's imports, so that nothing a byte can
do (an exception, the REPL) leaves the board dead for longer than its timeout (docs/firmware.md
"Boot").
"""

try:
    import micropython

    micropython.kbd_intr(-1)
except KeyboardInterrupt:  # a 0x03 that arrived before the line above
    import micropython

    micropython.kbd_intr(-1)

import machine

CAUSE = machine.reset_cause()
from firmware.jumper import maintenance  # noqa: E402 (small: reads config.json's pin only)

if maintenance():
    micropython.kbd_intr(3)  # the USB REPL is mpremote's
    print("jantaku-ctl: maintenance jumper set, not running")
else:
    WATCHDOG = machine.WDT(timeout=8000)  # ms: a hung import or loop reboots the board
    try:
        from firmware.pico import main

        main(WATCHDOG, CAUSE)
    finally:
        machine.reset()  # main never returns: whatever ended it, never leave the REPL to the host
