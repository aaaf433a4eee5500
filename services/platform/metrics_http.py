"""The metrics port: Prometheus metrics on /metrics only (any other path is 404)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any
from wsgiref.simple_server import make_server

from prometheus_client import make_wsgi_app
from prometheus_client.exposition import ThreadingWSGIServer, _SilentHandler

PATH = "/metrics"


def only_metrics() -> Callable[[dict[str, Any], Any], Iterable[bytes]]:
    """Return a WSGI app answering the metrics on PATH and 404 elsewhere."""
    metrics = make_wsgi_app()

    def app(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        if environ.get("PATH_INFO") != PATH:
            start_response("404 Not Found", [("Content-Type", "text/plain")])
            return [b"metrics are on /metrics\n"]
        return metrics(environ, start_response)

    return app


def start_metrics(port: int, addr: str = "") -> int:
    """Serve the metrics on addr:port in a daemon thread; return the bound port."""
    server = make_server(
        addr, port, only_metrics(), ThreadingWSGIServer, handler_class=_SilentHandler
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return int(server.server_port)
