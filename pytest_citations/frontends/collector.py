"""The cyclic garbage collector, paused for the start-up of ``citations check`` (see :func:`pause`)."""

from __future__ import annotations

import gc

_paused = False


def pause() -> None:
    """Turn the cyclic garbage collector off for the start-up of ``citations check``.

    Start-up (imports, plugins, settings) makes some hundred thousand objects that live as long as
    the run, and hardly any garbage, yet they set off dozens of collections that walk them all:
    about a tenth of a check of one small file. :func:`resume`, called once the engine is
    loaded, freezes them out of later collections (:func:`gc.freeze`; it also keeps the memory of
    ``-j`` workers shared with the parent, as the gc documentation explains) and turns the collector
    back on. Only the program does this: a caller of ``cli.main`` keeps its collector as it is.
    """
    global _paused
    gc.disable()
    _paused = True


def resume() -> None:
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()
