"""The live layer: render each change once (``render``), fan it out to every socket of every
process (``hub``), and serve those sockets (``sockets``, ``routing``).

It sits above ``core`` and below the pages: the log service knows nothing of it; at start-up
:func:`connect` subscribes the hub to the log's commits.
"""


def connect() -> None:
    """Subscribe the broadcaster to the log's commits (called once, from ``AppConfig.ready``)."""
    from ..core import changes, competitions, graphics, log, overlay
    from .hub import boards_changed, boards_changed_everywhere, broadcast, hub, overlay_switched, restate

    log.on_commit(broadcast)
    changes.on_change(boards_changed)
    # a result's effect on its competition runs in the hub's loop, out of the referee's request,
    # and once a tap's answer is sent (else it shared the interpreter with the answer's last steps)
    competitions.run_in_background_by(lambda job: hub.after_answer(job))
    log.on_restate(restate)
    overlay.on_switch(overlay_switched)
    graphics.on_switch(lambda table_id: boards_changed_everywhere())
