#!/usr/bin/env python3
# The tests' "upstream" DNS server: UDP and TCP on one loopback address and a port of its own,
# answering from a JSON zone as a CDN does: several addresses, short TTLs, CNAMEs to names of
# another domain, answers that rotate.  Every query is logged ("NAME TYPE" a line), so a test
# can tell what the sandbox's resolver asked.  No recursion, nothing forwarded: a name the zone
# does not have is NXDOMAIN.
#
#   dns_server.py ZONE.json PORTFILE LOGFILE [ADDR]
#
# ZONE: {"name": {"a": ["127.0.0.21", …], "aaaa": […], "cname": "other.name", "ttl": 30,
#                 "pick": 1}}     pick: answer with that many of the addresses, rotating
#       "*.name": {"hashed": true, "ttl": 60}: any name below, each with an address of its own
#                                  in 127.1.0.0/16 (a flood of names, each a pin)
import json, os, socket, struct, sys, threading, zlib

zone_file, port_file, log_file = sys.argv[1], sys.argv[2], sys.argv[3]
addr = sys.argv[4] if len(sys.argv) > 4 else "127.0.0.1"
zone = {k.lower().rstrip("."): v for k, v in json.load(open(zone_file)).items()}
turn = {}
lock = threading.Lock()
log = open(log_file, "a", buffering=1)


def read_name(msg, off):
    labels = []
    while True:
        n = msg[off]
        if n == 0:
            return ".".join(labels), off + 1
        if n & 0xC0:
            raise ValueError("no compression in questions")
        labels.append(msg[off + 1 : off + 1 + n].decode("ascii", "replace"))
        off += 1 + n


def wire(name):
    out = b""
    for label in name.split("."):
        if label:
            out += bytes([len(label)]) + label.encode()
    return out + b"\0"


def rr(name, rtype, ttl, data):
    return wire(name) + struct.pack(">HHIH", rtype, 1, ttl, len(data)) + data


def lookup(name):
    if name in zone:
        return zone[name]
    parts = name.split(".")
    for i in range(1, len(parts)):
        entry = zone.get("*." + ".".join(parts[i:]))
        if entry is not None:
            return entry
    return None


def addresses(name, entry, qtype):
    key, fam = ("a", socket.AF_INET) if qtype == 1 else ("aaaa", socket.AF_INET6)
    if entry.get("hashed"):
        h = zlib.crc32(name.encode())
        return [socket.inet_pton(socket.AF_INET, "127.1.%d.%d" % (h >> 8 & 255, h & 255))] if qtype == 1 else []
    addrs = entry.get(key, [])
    if not addrs:
        return []
    with lock:
        t = turn.get((name, key), 0)
        turn[(name, key)] = t + 1
    addrs = addrs[t % len(addrs) :] + addrs[: t % len(addrs)]
    addrs = addrs[: entry.get("pick", len(addrs))]
    return [socket.inet_pton(fam, a) for a in addrs]


def answer(msg):
    qid, flags, qd = struct.unpack(">HHH", msg[:6])
    name, off = read_name(msg, 12)
    qtype, qclass = struct.unpack(">HH", msg[off : off + 4])
    question = msg[12 : off + 4]
    types = {1: "A", 28: "AAAA", 5: "CNAME", 65: "HTTPS", 64: "SVCB"}
    log.write("%s %s\n" % (name.lower(), types.get(qtype, str(qtype))))
    records, rcode, cur = [], 0, name.lower().rstrip(".")
    for _ in range(8):
        entry = lookup(cur)
        if entry is None:
            rcode = 3 if not records else 0
            break
        ttl = entry.get("ttl", 30)
        if "cname" in entry:
            records.append(rr(cur, 5, ttl, wire(entry["cname"])))
            cur = entry["cname"].lower().rstrip(".")
            continue
        if qtype in (1, 28):
            for a in addresses(cur, entry, qtype):
                records.append(rr(cur, qtype, ttl, a))
        break
    head = struct.pack(">HHHHHH", qid, 0x8180 | rcode, 1, len(records), 0, 0)
    return head + question + b"".join(records)


def udp(s):
    while True:
        msg, peer = s.recvfrom(4096)
        try:
            s.sendto(answer(msg), peer)
        except Exception as e:  # a malformed query: no answer
            log.write("error %s\n" % e)


def tcp_conn(c):
    with c:
        while True:
            head = c.recv(2)
            if len(head) < 2:
                return
            (n,) = struct.unpack(">H", head)
            msg = b""
            while len(msg) < n:
                part = c.recv(n - len(msg))
                if not part:
                    return
                msg += part
            out = answer(msg)
            c.sendall(struct.pack(">H", len(out)) + out)


def tcp(s):
    while True:
        c, _ = s.accept()
        threading.Thread(target=tcp_conn, args=(c,), daemon=True).start()


def bind_pair():
    """A UDP and a TCP socket on one port.  The kernel picks the UDP port; that number may be
    in use for TCP (another test's connection): then try another."""
    for _ in range(100):
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.bind((addr, 0))
        t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            t.bind((addr, u.getsockname()[1]))
        except OSError:
            u.close()
            t.close()
            continue
        return u, t
    raise SystemExit("dns_server: no port free for both UDP and TCP")


u, t = bind_pair()
port = u.getsockname()[1]
t.listen(16)
threading.Thread(target=tcp, args=(t,), daemon=True).start()
with open(port_file + ".tmp", "w") as f:
    f.write(str(port))
os.rename(port_file + ".tmp", port_file)
udp(u)
