"""Exit 0 when a Kafka broker at HOST:PORT answers an ApiVersions (v0) request."""

import socket
import struct
import sys


def main(server: str) -> int:
    """Send ApiVersions v0 and check the correlation id and error code of the answer."""
    host, port = server.rsplit(":", 1)
    client = b"probe"
    body = struct.pack(">hhih", 18, 0, 7, len(client)) + client
    with socket.create_connection((host, int(port)), timeout=5) as s:
        s.sendall(struct.pack(">i", len(body)) + body)
        head = s.recv(4, socket.MSG_WAITALL)
        size = struct.unpack(">i", head)[0]
        answer = s.recv(size, socket.MSG_WAITALL)
    correlation, error = struct.unpack(">ih", answer[:6])
    return 0 if correlation == 7 and error == 0 else 1


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "localhost:9092"))
    except (OSError, ValueError, struct.error) as exc:
        print(f"no ApiVersions answer: {exc}")
        sys.exit(1)
