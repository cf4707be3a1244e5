"""What one run may spend in all, however many roots it checks (docs/security.md, rule 4): the
time its evidence stores take, the bytes of git history it reads. A limit per store or per cited
file alone would be multiplied by a checkout that holds many of them (nested roots, each with a
store of its own; many cited files, each with a long history).

Each such limit is an :class:`Allowance`, made by the code that spends it on first use in a run
(:func:`allowance`). A run begins when its top engine is made (``Engine.load`` calls
:func:`begin`): ``citations check`` makes one, and the engines of its nested roots spend from the
same allowances; ``pytest --citations`` makes one per root as it collects, before it checks any
file, so the checks of every root of a session spend from one. A worker process (``-j``,
pytest-xdist) spends from what was left when it started.
"""

from __future__ import annotations


class Allowance:
    """An amount a run may spend, grown by what the run's inputs bring (:meth:`grant`)."""

    def __init__(self, amount: float) -> None:
        self.left = amount

    def grant(self, amount: float) -> None:
        self.left += amount

    def spend(self, amount: float) -> None:
        self.left -= amount

    @property
    def spent(self) -> bool:
        return self.left <= 0


_allowances: dict[str, Allowance] = {}


def allowance(name: str, amount: float) -> Allowance:
    """This run's allowance ``name``: ``amount`` when the run first asks for it."""
    found = _allowances.get(name)
    if found is None:
        found = _allowances[name] = Allowance(amount)
    return found


def begin() -> None:
    """Start a run: every allowance is whole again."""
    _allowances.clear()
