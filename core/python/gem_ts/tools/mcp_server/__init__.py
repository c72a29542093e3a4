"""GEM's ``gem.tools.mcp_server``: sample MCP servers to point an ``MCPTool`` at (needs ``fastmcp``:
``pip install gem-ts[mcp]``)."""
