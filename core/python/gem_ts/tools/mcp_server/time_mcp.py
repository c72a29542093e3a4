"""A time MCP server, at the module path GEM users start it from (``gem.tools.mcp_server.time_mcp``).

Tools (names, arguments and answers as GEM's sample server has them): ``current_time``,
``relative_time``, ``days_in_month``, ``get_timestamp``, ``convert_time``, ``get_week_year``. Times
without a zone are local; an unknown or empty zone name means the local zone. Formats are the
Moment.js-style tokens YYYY, YY, MM, DD, HH, h, mm, ss, A.

Run it for an ``MCPTool``::

    python -m gem_ts.tools.mcp_server.time_mcp --port 8081          # http://127.0.0.1:8081/time-mcp
    python -m gem_ts.tools.mcp_server.time_mcp --transport stdio

It needs ``fastmcp`` (``pip install gem-ts[mcp]``); the gem-ts server talks to it as any MCP server.
"""

from __future__ import annotations

import argparse
import calendar
import logging
import re
from datetime import datetime, timezone, tzinfo
from typing import List, Optional
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

try:
    from fastmcp import FastMCP
except ImportError as e:  # pragma: no cover - depends on the install
    raise ImportError("gem_ts.tools.mcp_server.time_mcp needs fastmcp: pip install 'gem-ts[mcp]'") from e

log = logging.getLogger(__name__)

app = FastMCP("mcp-time-server")

# Longest tokens first, so "YYYY" is never read as two "YY" and "MM" (month) never as "mm".
_TOKENS = {"YYYY": "%Y", "YY": "%y", "MM": "%m", "DD": "%d", "HH": "%H", "h": "%-I", "mm": "%M", "ss": "%S", "A": "%p"}
_TOKEN_RE = re.compile("|".join(sorted(_TOKENS, key=len, reverse=True)))
_DAY = 24 * 3600
# Relative-time units: (name, seconds); a month counts 30 days and a year 12 such months.
_UNITS = [("years", 360 * _DAY), ("months", 30 * _DAY), ("days", _DAY), ("hours", 3600), ("minutes", 60)]


def _moment_to_strftime(fmt: str) -> str:
    """A Moment.js-style format ('YYYY-MM-DD HH:mm:ss', 'h:mm A', …) as a strftime format."""
    return _TOKEN_RE.sub(lambda m: _TOKENS[m.group(0)], fmt)


def _local_zone() -> tzinfo:
    return datetime.now().astimezone().tzinfo or timezone.utc


def _zone(name: Optional[str]) -> tzinfo:
    if not name:
        return _local_zone()
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return _local_zone()  # an unknown name falls back to local time, as GEM's server does


def _naive(text: str) -> datetime:
    """'YYYY-MM-DD HH:mm:ss' with optional '.SSS' (any number of fraction digits)."""
    main, dot, frac = text.partition(".")
    moment = datetime.strptime(main, "%Y-%m-%d %H:%M:%S")
    if dot:
        if not frac.isdigit():
            raise ValueError(f"bad fraction of a second in {text!r}")
        moment = moment.replace(microsecond=int(frac[:6].ljust(6, "0")))
    return moment


def _parse_dt(text: str) -> datetime:
    """A local date and time, 'YYYY-MM-DD HH:mm:ss[.SSS]'."""
    return _naive(text).replace(tzinfo=_local_zone())


def _parse_date(text: str) -> datetime:
    """A local date, 'YYYY-MM-DD', at midnight."""
    return datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=_local_zone())


def _day(date: Optional[str]) -> datetime:
    return _parse_date(date) if date else datetime.now(_local_zone())


@app.tool(annotations={"title": "Current date and time", "readOnlyHint": True})
def current_time(format: str = "YYYY-MM-DD HH:mm:ss", timezone: Optional[str] = None) -> str:
    """The current date/time in a Moment.js-style format (e.g. 'YYYY-MM-DD HH:mm:ss', 'YYYY-MM-DD',
    'MM/DD/YYYY', 'h:mm A') and an optional IANA time zone (e.g. 'Asia/Shanghai'; default: local)."""
    now = datetime.now(_zone(timezone))
    try:
        return now.strftime(_moment_to_strftime(format))
    except ValueError:
        return now.strftime("%Y-%m-%d %H:%M:%S")


@app.tool(annotations={"title": "Time relative to now", "readOnlyHint": True})
def relative_time(time: str) -> str:
    """How far a local time 'YYYY-MM-DD HH:mm:ss' is from now, e.g. 'in 3 days' or '2 hours ago'."""
    seconds = int((_parse_dt(time) - datetime.now(_local_zone())).total_seconds())
    amount, unit = abs(seconds), "seconds"
    for name, size in _UNITS:
        if abs(seconds) >= size:
            amount, unit = abs(seconds) // size, name
            break
    return f"in {amount} {unit}" if seconds > 0 else f"{amount} {unit} ago"


@app.tool(annotations={"title": "Days in a month", "readOnlyHint": True})
def days_in_month(date: Optional[str] = None) -> str:
    """The number of days in the month of 'YYYY-MM-DD' (default: this month)."""
    d = _day(date)
    return str(calendar.monthrange(d.year, d.month)[1])


@app.tool(annotations={"title": "Unix timestamp in milliseconds", "readOnlyHint": True})
def get_timestamp(time: str) -> str:
    """Milliseconds since the Unix epoch of a local time 'YYYY-MM-DD HH:mm:ss[.SSS]'."""
    moment = _parse_dt(time)
    whole = calendar.timegm(moment.astimezone(timezone.utc).timetuple())
    return str(whole * 1000 + moment.microsecond // 1000)


@app.tool(annotations={"title": "Convert a time between time zones", "readOnlyHint": True})
def convert_time(sourceTimezone: str, targetTimezone: str, time: str) -> str:
    """'YYYY-MM-DD HH:mm:ss' read in one IANA time zone, written in another."""
    moment = _naive(time).replace(tzinfo=_zone(sourceTimezone))
    return moment.astimezone(_zone(targetTimezone)).strftime("%Y-%m-%d %H:%M:%S")


@app.tool(annotations={"title": "Week number and ISO week number", "readOnlyHint": True})
def get_week_year(date: Optional[str] = None) -> str:
    """'week: W, isoWeek: I' for 'YYYY-MM-DD' (default: today); W counts weeks from the year's first Monday."""
    d = _day(date)
    return f"week: {int(d.strftime('%W'))}, isoWeek: {d.isocalendar()[1]}"


def main(argv: Optional[List[str]] = None) -> None:
    p = argparse.ArgumentParser(prog="python -m gem_ts.tools.mcp_server.time_mcp", description="A time MCP server.")
    p.add_argument("--transport", choices=["stdio", "http", "streamable-http"], default="streamable-http")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8081)
    p.add_argument("--path", default="/time-mcp")
    p.add_argument("--log-level", choices=["DEBUG", "INFO", "WARNING", "ERROR"], default="INFO")
    args = p.parse_args(argv)
    logging.basicConfig(level=args.log_level, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    if args.transport == "stdio":
        app.run(transport="stdio")
        return
    log.info("time MCP server on http://%s:%d%s", args.host, args.port, args.path)
    app.run(transport="streamable-http", host=args.host, port=args.port, path=args.path, log_level=args.log_level.lower())


if __name__ == "__main__":
    main()
