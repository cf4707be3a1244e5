"""The text of a PDF's pages, extracted by pypdf (the ``pdf`` extra) in a process of its own.

A PDF comes with the checkout (a Claude exchange's base64 document) or from any server (the online
check). A PDF of a few kilobytes may hold pypdf for minutes and gigabytes (a content stream of
millions of operators, a page tree that claims a billion pages, a cross-reference table rebuilt
from scratch), and pypdf's work cannot be stopped from another thread. So :func:`read` runs it in
a child process with a limit on its CPU time and address space, stopped after
:data:`CHILD_SECONDS`: the checker's own process never holds the PDF's objects, nor waits for them
past that time. Within the child, the text is taken from the first :data:`MAX_PAGES` pages, for
:data:`SECONDS` at most, and up to :data:`MAX_CHARACTERS` characters; what was cut is said.

The child is started isolated (``python -I``) from a neutral folder, with the path of the package's
own code and of pypdf, so that nothing in the checkout or the current folder can be imported.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import logging
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_PAGES = 500  # pages whose text is extracted at most
SECONDS = 3.0  # time the text may take to extract; the pages read by then are kept
# characters of text kept at most: what the child sends back and the parent holds (an astral
# character is 4 bytes of UTF-8 and of a Python string), far more than a quote's check needs
MAX_CHARACTERS = 4 << 20
CHILD_SECONDS = 10.0  # the child's time in all (CPU and wall), the PDF's parsing included
CHILD_MEMORY = 1 << 30  # the child's address space

EXTRA_MISSING = "the PDF's text needs the pdf extra (pypdf), which is not installed"
TOO_COSTLY = (f"reading the PDF took over {CHILD_SECONDS:g} s or {CHILD_MEMORY >> 20} MiB of memory, "
              "and was stopped")


@dataclass(frozen=True)
class PdfText:
    """The text of each page read, in order (None when none could be read, and ``unread`` says
    why); ``count``: the pages the PDF has; ``partial``: why only some of them were read;
    ``limited``: the reader's limits or means, not the PDF's nature (encrypted, without pages),
    kept it from being read (a PDF that cannot be opened counts: damage and a limit of pypdf look
    alike)."""

    pages: list[str] | None
    count: int = 0
    unread: str | None = None
    partial: str | None = None
    limited: bool = False


def read(body: bytes) -> PdfText:
    """The text of the PDF ``body``, read in a child process (see the module's docstring)."""
    # (imported here, not with the module: the rules are listed without starting a process)
    import subprocess
    import tempfile

    pypdf = importlib.util.find_spec("pypdf")
    if pypdf is None or pypdf.origin is None:
        return PdfText(None, unread=EXTRA_MISSING, limited=True)
    paths = [str(Path(__file__).resolve().parents[2]), str(Path(pypdf.origin).resolve().parents[1])]
    command = [sys.executable, "-I", "-c", _CHILD, json.dumps(paths)]
    try:
        # (its CPU time is bounded in the child; the wall clock, a few times over, for a busy machine)
        done = subprocess.run(command, input=body, capture_output=True, timeout=3 * CHILD_SECONDS,
                              cwd=tempfile.gettempdir(), check=False)
    except subprocess.TimeoutExpired:
        return PdfText(None, unread=TOO_COSTLY, limited=True)
    except OSError as error:
        return PdfText(None, unread=f"the PDF reader could not be started ({error.strerror or error})", limited=True)
    if done.returncode != 0:
        return PdfText(None, unread=TOO_COSTLY, limited=True)
    try:
        found = json.loads(done.stdout.decode("utf-8", "surrogatepass"))
        return PdfText(found["pages"], found["count"], found["unread"], found["partial"], found["limited"])
    except (ValueError, KeyError, TypeError):  # (a UnicodeDecodeError is a ValueError)
        return PdfText(None, unread="the PDF reader gave no answer", limited=True)


# The child: its limits first, then the package's code and pypdf from the paths it is given.
_CHILD = """
import json, sys
try:
    import resource
except ImportError:
    resource = None
sys.path[:0] = json.loads(sys.argv[1])
from pytest_citations.core import pdf_text
pdf_text.limit_this_process(resource)
sys.stdout.buffer.write(json.dumps(pdf_text.extract(sys.stdin.buffer.read()).__dict__, ensure_ascii=False)
                        .encode("utf-8", "surrogatepass"))
"""


def limit_this_process(resource: Any) -> None:
    """(In the child.) Its CPU time and address space, where the platform can limit them."""
    if resource is None:
        return
    for limit, value in ((resource.RLIMIT_CPU, int(CHILD_SECONDS) + 1), (resource.RLIMIT_AS, CHILD_MEMORY)):
        with contextlib.suppress(ValueError, OSError):  # (a lower hard limit stands)
            resource.setrlimit(limit, (value, value))


def extract(body: bytes) -> PdfText:
    """(In the child.) The text of the PDF's first pages, within the limits."""
    import pypdf

    logging.getLogger("pypdf").setLevel(logging.CRITICAL)  # a damaged PDF is said unreadable, not logged
    with _bounded(pypdf):
        try:
            reader = pypdf.PdfReader(io.BytesIO(body))
            if reader.is_encrypted and not _opens_without_password(reader):
                return PdfText(None, unread="the PDF is encrypted")
            pages = reader.pages
            count = len(pages)
        except Exception as error:  # pypdf raises many kinds of errors on a damaged PDF
            return PdfText(None, unread=f"the PDF cannot be read ({type(error).__name__})", limited=True)
        return _page_texts(pages, count)


class _OutOfTime(Exception):
    """Raised inside pypdf's text extraction when the PDF's time is up."""


def _page_texts(pages: Any, count: int) -> PdfText:
    """The text of the first pages, as many as the limits allow; a page whose text cannot be
    extracted is left out, and said so."""
    stop = _stop_at(time.process_time() + SECONDS)  # (CPU time: the child's own work, whatever else runs)
    texts: list[str] = []
    unreadable = characters = 0
    out_of_time = too_long = False
    for number in range(min(count, MAX_PAGES)):
        try:
            text = pages[number].extract_text(visitor_operand_before=stop) or ""
        except _OutOfTime:
            out_of_time = True
            break
        except Exception:  # (a damaged page, or one past pypdf's limits)
            unreadable += 1
            continue
        characters += len(text)
        if characters > MAX_CHARACTERS:
            too_long = True
            break
        texts.append(text)
    if not texts:
        reason = f"reading the PDF took over {SECONDS:g} s" if out_of_time else "no page of the PDF could be read"
        return PdfText(None, count, unread=reason if count else "the PDF has no pages", limited=bool(count))
    left_out = [
        f"only the first {len(texts) + unreadable} of the PDF's {count} pages are read" if len(texts) + unreadable < count else "",
        f"reading the PDF took over {SECONDS:g} s" if out_of_time else "",
        f"its text is over {MAX_CHARACTERS:,} characters" if too_long else "",
        f"the text of {unreadable} of the PDF's pages could not be extracted" if unreadable else "",
    ]
    return PdfText(texts, count, partial="; ".join(reason for reason in left_out if reason) or None)


def _opens_without_password(reader: Any) -> bool:
    """Whether an encrypted PDF opens with the empty password (PDFs that restrict only printing or
    copying do); AES needs the cryptography package, without which it does not open."""
    try:
        return bool(reader.decrypt(""))
    except Exception:
        return False


def _stop_at(deadline: float) -> Callable[..., None]:
    def visit(*_: Any) -> None:
        if time.process_time() > deadline:
            raise _OutOfTime

    return visit


@contextlib.contextmanager
def _bounded(pypdf: Any) -> Iterator[None]:
    """pypdf's own limits, tighter than its defaults, where pypdf has them (7.0 and later): a
    stream decompresses to 20 MB at most, and a page's content stream is parsed up to a million
    items (a few seconds; a dense one-page table of 30,000 labels holds 300,000)."""
    apply_configuration = getattr(pypdf, "apply_configuration", None)
    if apply_configuration is None:
        yield
        return
    limit = 20_000_000
    with apply_configuration(
        zlib_maximum_output_length=limit,
        lzw_maximum_output_length=limit,
        run_length_maximum_output_length=limit,
        brotli_maximum_output_length=limit,
        array_based_stream_maximum_output_length=limit,
        stream_parsing_work_maximum_count=1_000_000,
    ):
        yield
