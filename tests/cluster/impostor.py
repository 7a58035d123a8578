#!/usr/bin/env python3
"""Another user's process that poses as a job's mooncake_master: it
listens on the three ports (RPC: accepts and holds; metadata and metrics:
answers GET /health with 200 "OK" and every GET or PUT of /metadata with
200), as a second user on a shared node could, to be taken for the master.

  impostor.py RPC METADATA METRICS [PIDFILE]
"""
import http.server
import os
import socket
import sys
import threading


class Answer(http.server.BaseHTTPRequestHandler):
    def reply(self):
        body = b"OK" if self.path.startswith("/health") else b"impostor"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = reply

    def do_PUT(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.reply()

    def log_message(self, *args):
        pass


def main():
    rpc, md, mx = (int(p) for p in sys.argv[1:4])
    if len(sys.argv) > 4:
        with open(sys.argv[4], "w") as f:
            f.write(str(os.getpid()))
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", rpc))
    s.listen(64)
    for port in (md, mx):
        srv = http.server.ThreadingHTTPServer(("0.0.0.0", port), Answer)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
    print("IMPOSTOR LISTENING", flush=True)
    held = []
    while True:
        c, _ = s.accept()
        held.append(c)


if __name__ == "__main__":
    main()
