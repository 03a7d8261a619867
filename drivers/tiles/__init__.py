"""Tile sensors: RFID readers and cameras, and the pure models that turn their reads into evidence.

* RFID (``docs/tiles.md``): keyboard-emulating USB readers read as raw evdev bytes
  (:mod:`drivers.tiles.input_event`, :mod:`drivers.tiles.keymap`, :mod:`drivers.tiles.evdev_reader`)
  and serial frame readers (:mod:`drivers.tiles.serial_frame`, :mod:`drivers.tiles.serial_reader`)
  both produce :class:`~drivers.tiles.events.TagSeen`; :class:`~drivers.tiles.sensor.TileSensor`
  turns tags into tile reads through the enrolled tag registry, a debouncer and a location model,
  and reports every tag it cannot trust as a rejection with a reason, never as a guess.
* Camera: a :class:`~drivers.tiles.frames.FrameSource` feeds an ONNX
  :class:`~drivers.tiles.detector.OnnxTileDetector`; detections are assigned to configured zones and
  voted over frames (:mod:`drivers.tiles.voting`). Camera reads carry a confidence and are evidence
  to cross-check, never truth.
"""
