#!/usr/bin/env python3
"""recvtty SOCKET OUT [INPUT]: receive a pty master on a --console-socket (as conmon and
containerd do), write INPUT to it, copy what the container prints to OUT until the pty closes.
Prints "ready" once listening, so a test can wait for it."""
import os
import socket
import sys

path, out = sys.argv[1], sys.argv[2]
data_in = sys.argv[3].encode() if len(sys.argv) > 3 else b""
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(path)
srv.listen(1)
print("ready", flush=True)
conn, _ = srv.accept()
name, fds, _, _ = socket.recv_fds(conn, 1024, 1)
conn.close()
srv.close()
master = fds[0]
if data_in:
    os.write(master, data_in)
with open(out, "wb") as f:
    with open(out + ".name", "wb") as n:
        n.write(name.rstrip(b"\0"))
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: every slave fd is closed
            break
        if not chunk:
            break
        f.write(chunk)
        f.flush()
