"""The web page: a small HTTP/SSE gateway in front of the read side, and its static files."""
