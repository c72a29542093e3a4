"""GEM's ``gem.tools.search_tool``: ``<search>query</search>`` answered by a retrieval server
(``search_url`` / ``SEARCH_URL``) or, in gem-ts, a local BM25 index (``GEM_TS_SEARCH_CORPUS``)."""

from __future__ import annotations

from typing import Any, Dict, Optional

from .base_tool import BaseTool


class SearchTool(BaseTool):
    def __init__(self, num_workers: int = 1, search_url: Optional[str] = None, topk: int = 3, timeout: float = 5):
        super().__init__(num_workers)
        self.search_url = search_url
        self.topk = topk
        self.timeout = timeout

    wrapper_name = "search_tool_no_int_reward"

    def wrapper_options(self) -> Dict[str, Any]:
        opts: Dict[str, Any] = {"search_topk": self.topk, "search_timeout": self.timeout}
        if self.search_url:
            opts["search_url"] = self.search_url
        return opts


__all__ = ["SearchTool"]
