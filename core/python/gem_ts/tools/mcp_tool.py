"""GEM's ``gem.tools.mcp_tool``: the tools of MCP servers, called by the gem-ts server (its MCP client).

The configuration is GEM's: a URL, one server's settings, or ``{"mcpServers": {name: {...}}}``.
Callback handlers (logging, progress, sampling) would have to run in this process and are not
supported; authentication goes into the server settings (``headers``).
"""

from __future__ import annotations

import json
from typing import Any, Dict, Optional, Union

from .base_tool import BaseTool


class MCPTool(BaseTool):
    wrapper_name = "mcp_tool"

    def __init__(
        self,
        config: Union[str, Dict[str, Any]],
        auth: Optional[str] = None,
        headers: Optional[Dict[str, str]] = None,
        log_handler: Any = None,
        progress_handler: Any = None,
        sampling_handler: Any = None,
        max_retries: int = 3,
        delay_between_retries: float = 1.0,
        execution_timeout: float = 30.0,
        validate_on_init: bool = True,
        num_workers: int = 1,
    ):
        super().__init__(num_workers)
        if any(h is not None for h in (log_handler, progress_handler, sampling_handler)):
            raise NotImplementedError("MCPTool: callback handlers would run in Python; gem-ts calls MCP servers from its server")
        if not isinstance(config, (str, dict)) or not config:
            raise ValueError(f"MCPTool: config must be a URL or a settings dict, not {config!r}")
        self.config = _with_auth(config, auth, headers)
        self.max_retries = max_retries
        self.delay_between_retries = delay_between_retries
        self.execution_timeout = execution_timeout
        self.validate_on_init = validate_on_init

    def wrapper_options(self) -> Dict[str, Any]:
        return {"mcp_config": self.config, "mcp_timeout": self.execution_timeout}

    @classmethod
    def from_url(cls, url: str, auth: Optional[str] = None, headers: Optional[Dict[str, str]] = None, **kwargs: Any) -> "MCPTool":
        return cls(config=url, auth=auth, headers=headers, **kwargs)

    @classmethod
    def from_config_file(cls, config_path: str, **kwargs: Any) -> "MCPTool":
        with open(config_path, encoding="utf-8") as f:
            return cls(config=json.load(f), **kwargs)

    @classmethod
    def from_local_command(cls, server_params: Dict[str, Any], name: str = "default", **kwargs: Any) -> "MCPTool":
        return cls(config={"mcpServers": {name: dict(server_params)}}, **kwargs)

    @classmethod
    def from_multi_server(cls, servers: Dict[str, str], **kwargs: Any) -> "MCPTool":
        return cls(config={"mcpServers": {n: {"transport": "http", "url": u} for n, u in servers.items()}}, **kwargs)

    def reconfigure(self, config: Union[str, Dict[str, Any]], **kwargs: Any) -> None:
        """A new configuration for the envs wrapped from now on."""
        self.__init__(config, **kwargs)  # type: ignore[misc]

    def close(self) -> None:
        pass  # the server owns the MCP connections and closes them with the envs


def _with_auth(config: Union[str, Dict[str, Any]], auth: Optional[str], headers: Optional[Dict[str, str]]) -> Any:
    """GEM's HTTP shortcut (a URL with a bearer token / headers) as one server's settings."""
    if not isinstance(config, str) or (auth is None and not headers):
        return config
    all_headers = dict(headers or {})
    if auth:
        all_headers["Authorization"] = f"Bearer {auth}"
    return {"url": config, "headers": all_headers}


__all__ = ["MCPTool"]
