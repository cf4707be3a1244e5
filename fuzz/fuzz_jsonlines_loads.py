import atheris

with atheris.instrument_imports():
    from pytest_citations.core import jsonlines
import contextlib

from _common import run, text


def one(data: bytes) -> None:
    with contextlib.suppress(ValueError, RecursionError):
        jsonlines.loads(text(data))


if __name__ == "__main__":
    run(one)
