"""Device events → rules inputs, in exactly one place (pure): see :mod:`daemon.tracking.track`.

* :mod:`~daemon.tracking.track` -- ``track(held, state, item)``, table events, the step split;
* :mod:`~daemon.tracking.held` -- :class:`Held`, ``settle`` (the one interpreter of the log's
  tracker records, live and on restore) and ``where`` (tile locations: the reducer's + held);
* :mod:`~daemon.tracking.reads`, :mod:`~daemon.tracking.melds`, :mod:`~daemon.tracking.keys` --
  tile reads, meld areas, seat-panel keys;
* :mod:`~daemon.tracking.records` -- the records the fold asks the shell to log.

The async shell (``daemon/tracker.py``) feeds items, commits records in order and keeps ``Held``.
"""
