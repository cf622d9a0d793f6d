#!/usr/bin/env python3
"""ctr 1.6 has no `task update`: this sends containerd's Tasks/Update itself, so the shim runs
`RUNTIME update --resources - ID` with the OCI LinuxResources JSON on stdin, as it does for CRI's
UpdateContainerResources.

usage: ctrd_update.py SOCKET NAMESPACE CONTAINER RESOURCES_JSON

The request is encoded by hand (python3-grpcio only, no generated code):
UpdateTaskRequest { 1: container_id, 2: resources (google.protobuf.Any) }, and the Any holds
the JSON under the type URL containerd registers for specs.LinuxResources.
"""
import sys

import grpc

TYPE_URL = b"types.containerd.io/opencontainers/runtime-spec/1/LinuxResources"


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(num, data):
    """A length-delimited field (wire type 2)."""
    return varint(num << 3 | 2) + varint(len(data)) + data


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__.strip().splitlines()[3])
    sock, ns, cid, resources = sys.argv[1:]
    any_msg = field(1, TYPE_URL) + field(2, resources.encode())
    request = field(1, cid.encode()) + field(2, any_msg)
    with grpc.insecure_channel("unix://" + sock) as channel:
        update = channel.unary_unary(
            "/containerd.services.tasks.v1.Tasks/Update",
            request_serializer=lambda b: b,
            response_deserializer=lambda b: b,
        )
        try:
            update(request, metadata=[("containerd-namespace", ns)], timeout=30)
        except grpc.RpcError as e:
            sys.exit("update: %s" % e.details())


if __name__ == "__main__":
    main()
