"""The online check's command-line options, the same for ``citations check`` (``--online-*``) and
``pytest --citations`` (``--citations-online-*``): one table, read into an
:class:`~pytest_citations.online.run.OnlineRequest`. They are the user's: the checkout's settings
cannot allow a host or change how the web is fetched."""

from __future__ import annotations

import argparse
import ipaddress
import re
from collections.abc import Callable
from typing import Any

from pytest_citations.online.run import OnlineRequest

_DURATION = re.compile(r"(?P<number>\d+(?:\.\d+)?)(?P<unit>[smhd]?)")
_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}
_HOST_NAME = re.compile(r"(?=.{1,253}\.?$)(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?\.)*[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?\.?")
_CONNECT_TO = re.compile(r"(?P<host>\[[^\]]+\]|[^:\[\]]+):(?P<port>\d+):(?P<to_host>\[[^\]]+\]|[^:\[\]]+):(?P<to_port>\d+)")


def duration(text: str) -> float:
    """``30``, ``30s``, ``15m``, ``12h`` or ``1d``, in seconds."""
    match = _DURATION.fullmatch(text.strip())
    if not match:
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration such as 30s, 15m, 12h or 1d")
    return float(match["number"]) * _UNITS[match["unit"]]


def positive_duration(text: str) -> float:
    """A :func:`duration` over 0."""
    seconds = duration(text)
    if not seconds > 0:
        raise argparse.ArgumentTypeError(f"{text!r} is no time at all: give a duration such as 30s, 15m or 1h")
    return seconds


def positive_number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number")
    return value


def non_negative_number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds, 0 or more")
    return value


def positive_integer(text: str) -> int:
    if not text.isdigit() or int(text) < 1 or int(text) > 1000:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number from 1 to 1000")
    return int(text)


def hosts(text: str) -> list[str]:
    """A comma-separated list of host names, addresses and networks (CIDR)."""
    found = [part.strip() for part in text.split(",") if part.strip()]
    if not found:
        raise argparse.ArgumentTypeError("name a host, an address or a network (CIDR)")
    for item in found:
        if not _is_host(item):
            raise argparse.ArgumentTypeError(f"{item!r} is not a host name, an IP address or a network (CIDR) such as 10.0.0.0/8")
    return found


def _is_host(text: str) -> bool:
    try:
        ipaddress.ip_network(text.strip("[]"), strict=False)
        return True
    except ValueError:
        return "/" not in text and _HOST_NAME.fullmatch(text) is not None


def connect_to(text: str) -> tuple[tuple[str, int], tuple[str, int]]:
    """``HOST:PORT:HOST2:PORT2``, as curl's ``--connect-to``: a request for HOST:PORT connects to
    HOST2:PORT2 (its URL and Host header unchanged)."""
    match = _CONNECT_TO.fullmatch(text.strip())
    if not match:
        raise argparse.ArgumentTypeError(f"{text!r} is not HOST:PORT:HOST2:PORT2")
    return ((match["host"].strip("[]").lower(), int(match["port"])), (match["to_host"].strip("[]"), int(match["to_port"])))


class _Extend(argparse.Action):
    """Repeated options add up; each value may itself be a list."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        items = list(getattr(namespace, self.dest, None) or [])
        items.extend(values if isinstance(values, list) else [values])
        setattr(namespace, self.dest, items)


# (option suffix, attribute, argparse keywords)
OPTIONS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("refresh", "refresh", {"action": "store_true",
                            "help": "fetch every cited URL again, whatever the cache of answers holds (it is still written)"}),
    ("allow", "allow", {"type": hosts, "action": _Extend, "metavar": "HOSTS",
                        "help": "hosts, addresses or networks (CIDR) that may be fetched although they are private, "
                        "loopback or link-local; comma-separated, repeatable (also $CITATIONS_ONLINE_ALLOW)"}),
    ("timeout", "timeout", {"type": positive_number, "metavar": "SECONDS",
                            "help": "give up on a request after SECONDS (default 10)"}),
    ("time-limit", "time_limit", {"type": positive_duration, "metavar": "DURATION",
                                  "help": "stop fetching after DURATION in all (30s, 15m, 1h; default 5m): the URLs not "
                                  "answered by then are not reached (W708, an error)"}),
    ("max-body", "max_body", {"type": positive_integer, "metavar": "MIB",
                              "help": "read at most MIB mebibytes of a page (default 5); a page whose first part gives "
                              "no text, as a larger PDF's, is not checked (W708)"}),
    ("host-concurrency", "host_concurrency", {"type": positive_integer, "metavar": "N",
                                              "help": "requests in flight to one host at most (default 2)"}),
    ("host-interval", "host_interval", {"type": non_negative_number, "metavar": "SECONDS",
                                        "help": "seconds between two requests to one host at least (default 0.1)"}),
    ("max-age", "max_age", {"type": duration, "metavar": "AGE",
                            "help": "how long a cached answer is used before the URL is fetched again: 30s, 15m, 12h, "
                            "1d (default 1d)"}),
    ("connect-to", "connect_to", {"type": connect_to, "action": _Extend, "metavar": "HOST:PORT:HOST2:PORT2",
                                  "help": "connect to HOST2:PORT2 for a URL of HOST:PORT (as curl's --connect-to; "
                                  "a private HOST2 must also be allowed); repeatable"}),
)


def add_options(add: Callable[..., Any], prefix: str) -> None:
    """Register the options with ``add`` (``parser.add_argument`` or pytest's ``group.addoption``),
    each named ``{prefix}-{suffix}``, its value at ``{prefix}_{attribute}`` with dashes as
    underscores."""
    dest = prefix.lstrip("-").replace("-", "_")
    for suffix, attribute, keywords in OPTIONS:
        add(f"{prefix}-{suffix}", dest=f"{dest}_{attribute}", **keywords)


def given(read: Callable[[str], Any], prefix: str) -> list[str]:
    """The options of the table that were given (for the error "they need --online")."""
    dest = prefix.lstrip("-").replace("-", "_")
    return [f"{prefix}-{suffix}" for suffix, attribute, _ in OPTIONS if read(f"{dest}_{attribute}") not in (None, False, [])]


def online_request(read: Callable[[str], Any], prefix: str) -> OnlineRequest:
    """The request the options make; ``read(dest)`` gives an option's value."""
    dest = prefix.lstrip("-").replace("-", "_")
    values = {attribute: read(f"{dest}_{attribute}") for _, attribute, _ in OPTIONS}
    return OnlineRequest(
        refresh=bool(values["refresh"]), allow=tuple(values["allow"] or ()), timeout=values["timeout"],
        time_limit=values["time_limit"], max_body=values["max_body"],
        host_concurrency=values["host_concurrency"], host_interval=values["host_interval"], max_age=values["max_age"],
        connect_to=dict(values["connect_to"] or ()),
    )
