#!/usr/bin/env python3
"""A minimal seccomp agent for the tests: listens on a unix socket (linux.seccomp.listenerPath),
accepts one connection, receives the container process state with the seccomp notify fd
(SCM_RIGHTS), and writes to OUT one JSON object:

    {"nfds": <fds received>, "fd_is_seccomp": <the fd is a seccomp notify fd>,
     "message": <the process state, parsed>}

It never answers notifications: the tests notify a syscall the workload never calls.  It gives
up after a timeout so a runtime that never connects cannot hang a test.

usage: seccomp-listener.py SOCKET OUT [TIMEOUT_S]"""
import array
import json
import os
import socket
import sys


def fd_is_seccomp(fd):
    # A notify fd is an anonymous inode named "anon_inode:seccomp notify".
    try:
        return os.readlink("/proc/self/fd/%d" % fd) == "anon_inode:seccomp notify"
    except OSError:
        return False


def receive(conn):
    """The whole message (until the runtime closes) and the fds that came with it."""
    data, fds = b"", []
    while True:
        fdbuf = array.array("i")
        msg, anc, _flags, _addr = conn.recvmsg(65536, socket.CMSG_SPACE(16 * fdbuf.itemsize))
        for level, kind, payload in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fdbuf.frombytes(payload[: len(payload) - len(payload) % fdbuf.itemsize])
                fds.extend(fdbuf)
        if not msg:
            return data, fds
        data += msg


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    path, out = sys.argv[1], sys.argv[2]
    timeout = float(sys.argv[3]) if len(sys.argv) == 4 else 30.0
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    # Bound under a temporary name, then renamed: whoever sees SOCKET can connect at once.
    tmp = path + ".tmp"
    srv.bind(tmp)
    srv.listen(1)
    os.rename(tmp, path)
    srv.settimeout(timeout)
    conn, _ = srv.accept()
    conn.settimeout(timeout)
    data, fds = receive(conn)
    conn.close()
    result = {
        "nfds": len(fds),
        "fd_is_seccomp": bool(fds) and fd_is_seccomp(fds[0]),
        "message": json.loads(data),
    }
    for fd in fds:
        os.close(fd)
    with open(out + ".tmp", "w") as f:
        json.dump(result, f)
    os.rename(out + ".tmp", out)


if __name__ == "__main__":
    main()
