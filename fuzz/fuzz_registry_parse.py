import atheris

with atheris.instrument_imports():
    from pytest_citations.kinds.briefs import source_registry as registry
from _common import run, text


def one(data: bytes) -> None:
    registry.parse("source_registry.yaml", text(data))


if __name__ == "__main__":
    run(one)
