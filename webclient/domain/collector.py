"""Python's cyclic garbage collector kept out of a streaming answer.

A full pass of the collector walks every container object the server holds: some 100,000 after start-up
(the modules, the templates, the models' schemas), and many more in a long session (30,000 tool calls are
over a million). It runs whenever the objects that survived into the oldest generation grew by a
quarter, which is in the middle of a turn as often as not, and holds the event loop for the whole walk
(60 to 240 ms on a busy 2-core machine): every chunk that arrives meanwhile waits, whatever it is.

So the server settles its heap at quiet moments instead: once it has started, and when a turn ends, it
collects what was made since the last settling (a pass over that alone, not the whole heap) and freezes
the rest out of later passes (`gc.freeze`). What a turn leaves behind is then never walked again while
answers stream. A frozen object is still freed when nothing refers to it; only cycles among frozen
objects wait: they are collected when a session closes, and whenever the frozen heap has doubled since
the last full pass (a tab that closed, an entry replaced), in one full pass at that quiet moment.
"""

from __future__ import annotations

import gc

# Past this many times the objects frozen after the last full pass, the next settling makes a full pass.
GROWTH = 2.0


class Collector:
    """When the process's objects are settled (frozen) and released (collected in full)."""

    def __init__(self) -> None:
        self.enabled = False  # only a server turns it on: a test process's heap is its own business
        self._after_full = 0  # objects frozen after the last full pass
        self.full_passes = 0

    def enable(self) -> None:
        self.enabled = True
        self.release()

    def settle(self) -> None:
        """A quiet moment (a turn ended): what was made since the last one is collected, the rest frozen."""
        if not self.enabled:
            return
        gc.collect()  # walks only what is not frozen: what was made since the last settling
        gc.freeze()
        if gc.get_freeze_count() > GROWTH * max(self._after_full, 1):
            self.release()

    def release(self) -> None:
        """A session closed (or the frozen heap doubled): every cycle is collected, frozen ones too."""
        if not self.enabled:
            return
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self._after_full = gc.get_freeze_count()
        self.full_passes += 1


# The collector is one for the whole process.
COLLECTOR = Collector()
