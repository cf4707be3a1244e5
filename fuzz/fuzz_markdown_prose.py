import atheris

with atheris.instrument_imports():
    from pytest_citations.core import markdown_text
    from pytest_citations.kinds.code_tuples.inline import find_inline
from _common import run, text


def one(data: bytes) -> None:
    value = text(data)
    assert len(markdown_text.prose(value)) == len(value)
    list(find_inline(value))


if __name__ == "__main__":
    run(one)
