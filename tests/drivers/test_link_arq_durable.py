"""The host's deferred acknowledgement (docs/protocol/table-link.md §7.4, §7.7): a table event is
acknowledged only when the host says it is durable, and a restarted host resumes from what its log
holds. Pure: two endpoints back to back on a fake clock (tests/drivers/test_link_arq.py's Wire)."""

from __future__ import annotations

from test_link_arq import CAPS, T, Wire

from drivers.link.arq import Endpoint
from drivers.link.frame import decode_all, encode_frame
from drivers.link.messages import Dice, Hello, WallRaised
from drivers.link.reports import Acked, Delivered, Role, RxPosition


def _durable(w: Wire, *, resume: RxPosition | None = None) -> None:
    w.host = Endpoint(Role.HOST, boot_id=0x41, timings=T, defer_ack=True, resume=resume)


def _delivered(w: Wire) -> list[Delivered]:
    return [o for o in w.host_out if isinstance(o, Delivered)]


def test_no_ack_until_confirmed_and_resends_meanwhile_are_not_delivered() -> None:
    w = Wire()
    _durable(w)
    w.attach()
    w.settle()
    handle = w.ctl.send(Dice((3, 4)), w.now)
    w.run(0.12)  # two ack timeouts: the controller resends, the host holds its ack
    assert [d.message for d in _delivered(w)] == [Dice((3, 4))]
    assert w.host._awaiting == 0 and w.ctl.pending == 1
    assert w.host.counters.duplicates >= 1
    assert not [o for o in w.ctl_out if isinstance(o, Acked)]
    w.host.confirm(0xC0, 0, w.now)  # committed
    w.settle()
    assert [o.handle for o in w.ctl_out if isinstance(o, Acked)] == [handle]
    assert w.host._awaiting is None and w.ctl.pending == 0


def test_hello_reports_the_last_confirmed_seq_not_the_last_delivered() -> None:
    w = Wire()
    _durable(w)
    w.attach()
    w.settle()
    w.ctl.send(WallRaised(), w.now)
    w.settle()
    w.host.confirm(0xC0, 0, w.now)
    w.ctl.send(Dice((1, 2)), w.now)
    w.settle()  # seq 1 delivered, not confirmed
    w.host.detach(w.now)
    w.host.attach(w.now)
    data, _ = w.host.drain()
    [hello] = [f.message for f in decode_all(data) if isinstance(getattr(f, "message", None),
                                                                  Hello)]
    assert isinstance(hello, Hello)
    assert (hello.rx_boot_id, hello.rx_last) == (0xC0, 0)


def test_a_restarted_host_resumes_and_the_controller_settles_what_was_logged() -> None:
    """§7.7: killed between commit and ack; the new process's hello names the logged seq."""
    w = Wire()
    _durable(w)
    w.attach()
    w.settle()
    w.ctl.send(Dice((3, 4)), w.now)
    w.settle()
    assert w.ctl.pending == 1  # delivered and committed, but the process died before the ack
    _durable(w, resume=RxPosition(0xC0, 0))
    w.host_out.clear()
    w.ctl.detach(w.now)
    w.attach()
    w.settle()
    assert w.ctl.pending == 0 and _delivered(w) == []  # settled by hello, not delivered again
    w.ctl.send(WallRaised(), w.now)
    w.settle()
    assert [(d.message, d.at.seq) for d in _delivered(w)] == [(WallRaised(), 1)]


def test_a_resend_of_the_logged_seq_after_restart_is_acknowledged_not_delivered() -> None:
    w = Wire()
    _durable(w, resume=RxPosition(0xC0, 7))
    w.ctl = Endpoint(Role.CONTROLLER, boot_id=0xC0, timings=T, capabilities=CAPS)
    w.attach()
    w.settle()
    # a controller that ignores hello.rx_last and resends seq 7 verbatim
    w.host.receive(encode_frame(Dice((3, 4)), 7, retransmit=True), w.now)
    data, out = w.host.drain()
    assert not [o for o in out if isinstance(o, Delivered)]
    assert w.host.counters.duplicates == 1
    assert any(getattr(f, "seq", None) == 7 for f in decode_all(data))


def test_a_rebooted_controller_starts_afresh_and_a_late_confirm_changes_nothing() -> None:
    w = Wire()
    _durable(w, resume=RxPosition(0xBEEF, 41))
    w.attach()
    w.settle()  # the controller (boot 0xC0) is not the one the log knew
    w.host.confirm(0xBEEF, 41, w.now)  # stale: nothing is awaited
    w.ctl.send(Dice((2, 2)), w.now)
    w.settle()
    assert [(d.message, d.at.seq) for d in _delivered(w)] == [(Dice((2, 2)), 0)]
