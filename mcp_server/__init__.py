"""The MCP server at /mcp: outside AI apps and Mac programs connect as one of the owner's agents.

See server.py for what the server holds, session.py for how an app's calls run, and asgi.py for how /mcp sits
beside Django and Channels in the ASGI app.
"""
