"""Hardware in the loop: the simulator's bots play through emulated devices into the real daemon.

    python -m hil.runner hil/scenarios/clean-mleague.toml       # one scenario
    python -m hil.runner --ruleset wmc --seed 7 --hands 3        # a game, compared
    python -m hil.runner --real-table /dev/ttyUSB0 ...           # a real serial link (docs/hil.md)

The world side is :class:`hil.simulator.GameSimulator` (the wall, the dice, four bots): each of its
steps is *performed* on the emulated sensor table (:mod:`hil.rig`) -- table actions as table-link
frames on a pty, tile moves as RFID frames on the zone readers, declarations as seat-panel keys,
clock presses as GPIO edges -- at the bots' think-time instants scaled by ``speed``. The daemon
side is the production service (``daemon.service.Service``) built from a venue config by
``daemon.devices.build_drivers``: its real serial table driver, RFID reader drivers, device tracker
(``daemon/tracker.py``) and gpiozero buttons on a ``MockFactory`` (GPIO mock pins can only be
driven in-process, so the daemon runs in this process; ``hil.procdaemon`` runs ``jantaku run``
as a separate process for the kill -9 scenario).

The two are played in lockstep: after every device event the runner waits until the tracker has
consumed it (the table link and the readers are separate wires; a real player also waits for the
rack LED). At the end the daemon's rules events are compared with the simulator's own reducer run:
equal types, seats, tiles and scores, event by event (docs/hil.md, *What is compared*).
"""

# The package by concern (docs/hil.md):
#   hil.runner.compare   -- what of the two event streams is compared, and how
#   hil.runner.result    -- GameResult, one game's outcome on both sides
#   hil.runner.inprocess -- the daemon side: the production service in this process
#   hil.runner.lockstep  -- the world side: HilRunner performs the simulator's steps on the rig
#   hil.runner.session   -- HilSession and run_game, a rig and a daemon for one game or many
#   hil.runner.__main__  -- ``python -m hil.runner`` (the command itself is hil/cli.py)
