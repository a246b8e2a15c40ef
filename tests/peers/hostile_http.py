"""A hostile Streamable HTTP "agent" on loopback, for the remote-agent hardening tests.

    python hostile_http.py PORT MODE

- `flood`: answers the `initialize` POST with 200, an `Acp-Connection-Id` and a chunked body of
  64 KiB chunks that never ends, as fast as the client reads;
- `trickle`: the same answer, a byte every 0.2 s, forever (under any size cap);
- `silent`: accepts the connection and never answers anything.
"""

from __future__ import annotations

import socket
import sys
import threading
import time

PORT, MODE = int(sys.argv[1]), sys.argv[2]
HEAD = (
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nAcp-Connection-Id: hostile-1\r\n"
    b"Transfer-Encoding: chunked\r\n\r\n"
)


def read_request(conn: socket.socket) -> None:
    data = b""
    while b"\r\n\r\n" not in data:
        more = conn.recv(65536)
        if not more:
            return
        data += more


def serve(conn: socket.socket) -> None:
    try:
        read_request(conn)
        if MODE == "silent":
            while conn.recv(65536):
                pass
            return
        conn.sendall(HEAD)
        if MODE == "flood":
            chunk = b"x" * 65536
            framed = b"%x\r\n%s\r\n" % (len(chunk), chunk)
            while True:
                conn.sendall(framed)
        while True:  # trickle
            conn.sendall(b"1\r\n \r\n")
            time.sleep(0.2)
    except OSError:
        pass
    finally:
        conn.close()


with socket.create_server(("127.0.0.1", PORT)) as server:
    while True:
        connection, _ = server.accept()
        threading.Thread(target=serve, args=(connection,), daemon=True).start()
