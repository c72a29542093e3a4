"""gem_ts.tools.mcp_server.time_mcp: the time MCP server GEM users start at that module path.
Expected answers are facts of the calendar (and of GEM's sample server's tool contract)."""

import asyncio
import re
from datetime import datetime, timedelta

import pytest

pytest.importorskip("fastmcp", reason="the time MCP server needs fastmcp (pip install gem-ts[mcp])")

from gem_ts.tools.mcp_server import time_mcp  # noqa: E402


def call(tool: str, **args):
    async def run():
        return (await (await time_mcp.app.get_tool(tool)).run(args)).content[0].text

    return asyncio.run(run())


def test_the_six_tools_are_served():
    async def names():
        return set(await time_mcp.app.get_tools())

    want = {"current_time", "relative_time", "days_in_month", "get_timestamp", "convert_time", "get_week_year"}
    assert want <= asyncio.run(names())


def test_formats_read_as_moment_tokens():
    assert time_mcp._moment_to_strftime("YYYY-MM-DD HH:mm:ss") == "%Y-%m-%d %H:%M:%S"
    assert time_mcp._moment_to_strftime("MM/DD/YY") == "%m/%d/%y"
    assert time_mcp._moment_to_strftime("h:mm:ss A") == "%-I:%M:%S %p"
    assert re.fullmatch(r"\d{4}/\d{2}", call("current_time", format="YYYY/MM", timezone="UTC"))
    assert re.fullmatch(r"\d{1,2}:\d{2} (AM|PM)", call("current_time", format="h:mm A"))


def test_days_in_month_knows_leap_years():
    assert [call("days_in_month", date=d) for d in ("2024-02-10", "2023-02-01", "1900-02-01", "2000-02-29", "2023-04-30")] == [
        "29", "28", "28", "29", "30",
    ]  # fmt: skip
    assert 28 <= int(call("days_in_month")) <= 31


def test_convert_time_between_zones():
    assert (
        call("convert_time", sourceTimezone="Asia/Shanghai", targetTimezone="Europe/London", time="2025-03-23 12:30:00")
        == "2025-03-23 04:30:00"
    )
    assert (
        call("convert_time", sourceTimezone="UTC", targetTimezone="America/New_York", time="2023-07-01 12:00:00") == "2023-07-01 08:00:00"
    )
    assert call("convert_time", sourceTimezone="UTC", targetTimezone="Pacific/Auckland", time="2023-12-31 23:30:00").startswith(
        "2024-01-01"
    )


def test_week_numbers():
    assert call("get_week_year", date="2025-03-23") == "week: 11, isoWeek: 12"
    assert call("get_week_year", date="2021-01-03") == "week: 0, isoWeek: 53"


def test_timestamps_and_relative_times():
    local = datetime(2023, 1, 1, 12, 30, 45, 789000).astimezone()
    assert int(call("get_timestamp", time="2023-01-01 12:30:45.789")) == round(local.timestamp() * 1000)
    now = datetime.now().replace(microsecond=0)
    at = lambda delta: (now + delta).strftime("%Y-%m-%d %H:%M:%S")  # noqa: E731
    assert call("relative_time", time=at(timedelta(days=3, hours=5))) == "in 3 days"
    assert call("relative_time", time=at(-timedelta(days=65))) == "2 months ago"
    assert call("relative_time", time=at(-timedelta(days=800))) == "2 years ago"


def test_bad_dates_are_tool_errors():
    with pytest.raises(Exception, match="does not match format|invalid|Error"):
        call("days_in_month", date="31/12/2023")
    with pytest.raises(Exception):
        call("get_timestamp", time="2023-01-01 12:00:00.x")
