"""The protobuf wire format, by hand, for the test clients that speak gRPC with python3-grpcio's
generic calls on raw bytes (no generated code, no python3-protobuf message classes):
tests/lib/cri_client.py (CRI) and tests/lib/ctrd_update.py (containerd's Tasks/Update).

Msg encodes a message field by field; decode turns bytes into {field number: [values]}, which
one, text, signed and string_map read.  Only what those clients use: varints and
length-delimited fields (strings, bytes, sub-messages, map<string, string>).
"""


def varint(n):
    if n < 0:
        n += 1 << 64  # int32/int64 negatives are ten-byte two's complement
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def key(num, wire):
    return varint(num << 3 | wire)


class Msg:
    """A message being encoded: fields appended in order; empty values are left out, as proto3
    does for scalars."""

    def __init__(self):
        self.buf = bytearray()

    def varint(self, num, value):
        if value:
            self.buf += key(num, 0) + varint(int(value))
        return self

    def bytes_(self, num, value, keep_empty=False):
        if isinstance(value, str):
            value = value.encode()
        if value or keep_empty:
            self.buf += key(num, 2) + varint(len(value)) + value
        return self

    string = bytes_

    def msg(self, num, sub):
        if sub is not None:
            self.bytes_(num, bytes(sub.buf), keep_empty=True)
        return self

    def strings(self, num, values):
        for v in values:
            self.bytes_(num, v, keep_empty=True)
        return self

    def map(self, num, d):
        for k, v in d.items():
            self.msg(num, Msg().string(1, k).bytes_(2, v, keep_empty=True))
        return self

    def __bytes__(self):
        return bytes(self.buf)


def decode(data):
    """Bytes → {field number: [values]}; length-delimited values stay bytes."""
    fields = {}
    i = 0
    while i < len(data):
        k, i = read_varint(data, i)
        num, wire = k >> 3, k & 7
        if wire == 0:
            val, i = read_varint(data, i)
        elif wire == 2:
            n, i = read_varint(data, i)
            val, i = data[i:i + n], i + n
        elif wire == 1:
            val, i = int.from_bytes(data[i:i + 8], "little"), i + 8
        elif wire == 5:
            val, i = int.from_bytes(data[i:i + 4], "little"), i + 4
        else:
            raise ValueError("unsupported wire type %d" % wire)
        fields.setdefault(num, []).append(val)
    return fields


def read_varint(data, i):
    n = shift = 0
    while True:
        b = data[i]
        i += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return n, i


def signed(n, bits=64):
    return n - (1 << bits) if n >= 1 << (bits - 1) else n


def one(fields, num, default=None):
    """The last value of field num (proto3: the last one wins), or default."""
    v = fields.get(num)
    return v[-1] if v else default


def text(fields, num):
    return one(fields, num, b"").decode()


def string_map(fields, num):
    """A map<string, string> field."""
    out = {}
    for entry in fields.get(num, []):
        e = decode(entry)
        out[text(e, 1)] = text(e, 2)
    return out
