"""Single facts shared by many layers: the package's name and version (:mod:`.about`), where the
library is published (:mod:`.addresses`), the MCP server's name and tools (:mod:`.mcp_names`).
"""
