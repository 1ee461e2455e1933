"""ragwire's HTTP servers; :mod:`ragwire.server.security` holds the rules every one of them follows.

Importing this package imports nothing heavy (no web framework, no mcp).
"""
