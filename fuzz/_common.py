"""Shared by the atheris targets: run one entry point on fuzzer bytes; only expected errors pass."""

import sys

import atheris


def run(test_one_input) -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


def text(data: bytes) -> str:
    return atheris.FuzzedDataProvider(data).ConsumeUnicodeNoSurrogates(len(data))
