#!/usr/bin/env python3
# The tests' web servers behind the upstream's names: one port (picked here, written to
# PORTFILE) on each loopback address given, serving DIR as files (a package index, a registry,
# a git repository over dumb http), and /whoami with the address the client reached and its
# Host header.  Each request is logged to DIR/../http.log.
#
#   http_server.py DIR PORTFILE ADDR…
import functools, http.server, os, socket, sys, threading

root, port_file, addrs = sys.argv[1], sys.argv[2], sys.argv[3:]


class Handler(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/whoami":
            body = ("%s %s\n" % (self.connection.getsockname()[0], self.headers.get("Host", ""))).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()

    def log_message(self, fmt, *args):
        with open(os.path.join(root, "..", "http.log"), "a") as f:
            f.write("%s %s\n" % (self.connection.getsockname()[0], fmt % args))


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True


handler = functools.partial(Handler, directory=root)
port = 0
servers = []
for a in addrs:
    s = Server((a, port), handler)
    port = s.server_address[1]
    servers.append(s)
for s in servers[1:]:
    threading.Thread(target=s.serve_forever, daemon=True).start()
with open(port_file + ".tmp", "w") as f:
    f.write(str(port))
os.rename(port_file + ".tmp", port_file)
servers[0].serve_forever()
