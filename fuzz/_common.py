"""Shared by the atheris targets: run one entry point on fuzzer bytes; only expected errors pass."""

import atexit
import contextlib
import io
import os
import shutil
import sys
import tempfile

import atheris


def run(test_one_input, seeds: list[bytes] = ()) -> None:
    """Fuzz ``test_one_input``, starting from ``seeds`` as well as any corpus named on the command
    line: inputs that once crashed an entry point, so that every run tries them first."""
    arguments = list(sys.argv)
    if seeds:
        folder = tempfile.mkdtemp(prefix="fuzz-seeds-")
        atexit.register(shutil.rmtree, folder, True)
        names = [os.path.join(folder, f"seed-{number}") for number in range(len(seeds))]
        for name, seed in zip(names, seeds, strict=True):
            with open(name, "wb") as stream:
                stream.write(seed)
        arguments.append("-seed_inputs=" + ",".join(names))
    atheris.Setup(arguments, test_one_input)
    atheris.Fuzz()


def text(data: bytes) -> str:
    return atheris.FuzzedDataProvider(data).ConsumeUnicodeNoSurrogates(len(data))


def checked(main, argv: list[str], stdin: bytes = b"", cwd=None) -> tuple[int, str, str]:
    """``main(argv)`` run in ``cwd`` with standard input ``stdin``: its exit status, standard output
    and standard error. An exception escaping it is a crash: the program would print its traceback
    as it is, past every escape; a traceback or an internal error printed on standard error is one
    too."""
    out, err = io.StringIO(), io.StringIO()
    saved, here = sys.stdin, os.getcwd()
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(argv)
    finally:
        sys.stdin = saved
        os.chdir(here)
    stderr = err.getvalue()
    assert "Traceback (most recent call last)" not in stderr, stderr
    assert "citations: internal error" not in stderr, stderr  # an exception caught and named: still a crash
    return status, out.getvalue(), stderr
