#!/usr/bin/env python3
"""ctr 1.6 has no `task update`: this sends containerd's Tasks/Update itself, so the shim runs
`RUNTIME update --resources - ID` with the OCI LinuxResources JSON on stdin, as it does for CRI's
UpdateContainerResources.

usage: ctrd_update.py SOCKET NAMESPACE CONTAINER RESOURCES_JSON

The request is encoded by hand with tests/lib/pb.py (python3-grpcio only, no generated code):
UpdateTaskRequest { 1: container_id, 2: resources (google.protobuf.Any) }, and the Any holds
the JSON under the type URL containerd registers for specs.LinuxResources.
"""
import sys

import grpc

sys.dont_write_bytecode = True  # no __pycache__ left in tests/lib
from pb import Msg  # noqa: E402 (tests/lib/pb.py)

TYPE_URL = b"types.containerd.io/opencontainers/runtime-spec/1/LinuxResources"


def main():
    if len(sys.argv) != 5:
        sys.exit(next(l for l in __doc__.splitlines() if l.startswith("usage:")))
    sock, ns, cid, resources = sys.argv[1:]
    any_msg = Msg().string(1, TYPE_URL).bytes_(2, resources)
    request = bytes(Msg().string(1, cid).msg(2, any_msg))
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
