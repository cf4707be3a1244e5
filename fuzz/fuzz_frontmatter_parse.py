import atheris

with atheris.instrument_imports():
    from pytest_citations.core import frontmatter
from _common import run, text


def one(data: bytes) -> None:
    frontmatter.parse("---\n" + text(data) + "\n---\n")


if __name__ == "__main__":
    run(one)
