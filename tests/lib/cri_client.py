#!/usr/bin/python3
"""A small CRI client for tests/cri.bats: the calls the kubelet makes, and nothing else.

crictl is not packaged in Debian 12, and the generated CRI bindings are not either, so this
speaks runtime.v1.RuntimeService with grpc's generic unary calls on raw bytes and encodes the
protobuf messages itself (tests/lib/pb.py).  Only the fields the tests need are written or
read; their numbers are those of the CRI v1 API (kubernetes/cri-api,
pkg/apis/runtime/v1/api.proto).

Usage: cri_client.py [--endpoint unix:///PATH] COMMAND ...  (CRI_ENDPOINT in the environment
works too).  Errors of the RPC are printed as one line and exit 125; exec-sync exits with the
command's own exit code.
"""

import argparse
import json
import os
import sys

import grpc

sys.dont_write_bytecode = True  # no __pycache__ left in tests/lib
from pb import Msg, decode, one, signed, string_map, text  # noqa: E402 (tests/lib/pb.py)

SERVICE = "/runtime.v1.RuntimeService/"

# NamespaceMode
POD, CONTAINER, NODE = 0, 1, 2
CONTAINER_STATES = {0: "CONTAINER_CREATED", 1: "CONTAINER_RUNNING", 2: "CONTAINER_EXITED",
                    3: "CONTAINER_UNKNOWN"}
SANDBOX_STATES = {0: "SANDBOX_READY", 1: "SANDBOX_NOTREADY"}


# --- messages -------------------------------------------------------------------------------

def user_namespace(userns):
    """UserNamespace (cri-api v1, since Kubernetes 1.25): what the kubelet sends for a pod with
    hostUsers: false, mode POD and one range from container id 0 for both uids and gids, the
    same in the PodSandboxConfig and in every ContainerConfig of the pod.  None: the field left
    out, for a pod with the node's user namespace."""
    if not userns:
        return None
    host, sep, length = userns.partition(":")
    if not sep or not host.isdigit() or not length.isdigit():
        die("--userns: expected HOSTID:LENGTH, not `%s`" % userns)
    # IDMapping: host_id = 1, container_id = 2, length = 3.
    mapping = Msg().varint(1, int(host)).varint(2, 0).varint(3, int(length))
    return Msg().varint(1, POD).msg(2, mapping).msg(3, mapping)


def namespace_option(network, pid, ipc, userns=None):
    # NamespaceOption: network = 1, pid = 2, ipc = 3, target_id = 4, userns_options = 5.
    return (Msg().varint(1, network).varint(2, pid).varint(3, ipc)
            .msg(5, user_namespace(userns)))


def pod_sandbox_config(a):
    meta = Msg().string(1, a.name).string(2, a.uid).string(3, a.namespace).varint(4, a.attempt)
    # The kubelet's pod with hostNetwork: true, as tests/cri.bats runs it (no CNI here).
    secctx = Msg().msg(1, namespace_option(NODE if a.host_network else POD, CONTAINER, POD,
                                           a.userns))
    linux = Msg().string(1, a.cgroup_parent).msg(2, secctx)
    m = Msg().msg(1, meta).string(2, a.hostname).string(3, a.log_dir)
    if a.dns_server:
        # DNSConfig: containerd writes the sandbox's resolv.conf from it.
        m.msg(4, Msg().strings(1, a.dns_server))
    return m.map(6, kv(a.label)).map(7, kv(a.annotation)).msg(8, linux)


def linux_resources(a):
    return (Msg().varint(1, a.cpu_period).varint(2, a.cpu_quota).varint(3, a.cpu_shares)
            .varint(4, a.memory))


def container_config(a):
    meta = Msg().string(1, a.name).varint(2, a.attempt)
    image = Msg().string(1, a.image)
    secctx = Msg().msg(3, namespace_option(NODE if a.host_network else POD, CONTAINER, POD,
                                           a.userns))
    linux = Msg().msg(1, linux_resources(a)).msg(2, secctx)
    m = (Msg().msg(1, meta).msg(2, image).strings(3, a.command).strings(4, a.args)
         .string(5, a.workdir))
    for k, v in kv(a.env).items():
        m.msg(6, Msg().string(1, k).string(2, v))
    return (m.map(9, kv(a.label)).map(10, kv(a.annotation)).string(11, a.log_path)
            .msg(15, linux))


def kv(pairs):
    out = {}
    for p in pairs or []:
        k, sep, v = p.partition("=")
        if not sep:
            die("expected KEY=VALUE, not `%s`" % p)
        out[k] = v
    return out


# --- calls ----------------------------------------------------------------------------------

def die(msg, code=125):
    print("cri_client: " + msg, file=sys.stderr)
    sys.exit(code)


class Client:
    def __init__(self, endpoint, timeout):
        self.channel = grpc.insecure_channel(endpoint)
        self.timeout = timeout

    def call(self, method, req):
        fn = self.channel.unary_unary(SERVICE + method, request_serializer=bytes,
                                      response_deserializer=lambda b: b)
        try:
            return decode(fn(bytes(req), timeout=self.timeout))
        except grpc.RpcError as e:
            die("%s: %s: %s" % (method, e.code().name, e.details()))


def cmd_version(c, a):
    r = c.call("Version", Msg().string(1, "v1"))
    print(json.dumps({"version": text(r, 1), "runtime_name": text(r, 2),
                      "runtime_version": text(r, 3), "runtime_api_version": text(r, 4)}))


def cmd_runp(c, a):
    config = pod_sandbox_config(a)
    if a.save:
        with open(a.save, "wb") as f:
            f.write(bytes(config))
    r = c.call("RunPodSandbox", Msg().msg(1, config).string(2, a.handler))
    print(text(r, 1))


def cmd_create(c, a):
    with open(a.pod_config, "rb") as f:
        sandbox = Msg()
        sandbox.buf += f.read()
    r = c.call("CreateContainer",
               Msg().string(1, a.pod).msg(2, container_config(a)).msg(3, sandbox))
    print(text(r, 1))


def cmd_start(c, a):
    c.call("StartContainer", Msg().string(1, a.id))


def cmd_stop(c, a):
    c.call("StopContainer", Msg().string(1, a.id).varint(2, a.grace))


def cmd_rm(c, a):
    c.call("RemoveContainer", Msg().string(1, a.id))


def cmd_stopp(c, a):
    c.call("StopPodSandbox", Msg().string(1, a.id))


def cmd_rmp(c, a):
    c.call("RemovePodSandbox", Msg().string(1, a.id))


def cmd_exec_sync(c, a):
    if not a.cmd:
        die("exec-sync: no command")
    r = c.call("ExecSync", Msg().string(1, a.id).strings(2, a.cmd).varint(3, a.exec_timeout))
    sys.stdout.buffer.write(one(r, 1, b""))
    sys.stdout.flush()
    sys.stderr.buffer.write(one(r, 2, b""))
    sys.stderr.flush()
    sys.exit(signed(one(r, 3, 0), 64) & 0xFF)


def cmd_status(c, a):
    r = c.call("ContainerStatus", Msg().string(1, a.id))
    s = decode(one(r, 1, b""))
    res = decode(one(decode(one(s, 16, b"")), 1, b"") if 16 in s else b"")
    print(json.dumps({
        "id": text(s, 1),
        "state": CONTAINER_STATES.get(one(s, 3, 0), "?"),
        "created_at": signed(one(s, 4, 0)),
        "started_at": signed(one(s, 5, 0)),
        "finished_at": signed(one(s, 6, 0)),
        "exit_code": signed(one(s, 7, 0)),
        "reason": text(s, 10),
        "message": text(s, 11),
        "annotations": string_map(s, 13),
        "memory_limit_in_bytes": signed(one(res, 4, 0)),
    }))


def cmd_podstatus(c, a):
    r = c.call("PodSandboxStatus", Msg().string(1, a.id))
    s = decode(one(r, 1, b""))
    net = decode(one(s, 5, b"")) if 5 in s else {}
    print(json.dumps({"id": text(s, 1), "state": SANDBOX_STATES.get(one(s, 3, 0), "?"),
                      "ip": text(net, 1) if net else "",
                      "annotations": string_map(s, 8), "runtime_handler": text(s, 9)}))


def cmd_update(c, a):
    c.call("UpdateContainerResources", Msg().string(1, a.id).msg(2, linux_resources(a)))


def cmd_listp(c, a):
    r = c.call("ListPodSandbox", Msg())
    for item in r.get(1, []):
        print(text(decode(item), 1))


def cmd_cleanup(c, a):
    """Stops and removes every pod sandbox (and so every container): teardown after a failure."""
    r = c.call("ListPodSandbox", Msg())
    for item in r.get(1, []):
        pod = text(decode(item), 1)
        c.call("StopPodSandbox", Msg().string(1, pod))
        c.call("RemovePodSandbox", Msg().string(1, pod))
        print(pod)


def main():
    p = argparse.ArgumentParser(prog="cri_client.py")
    p.add_argument("--endpoint", default=os.environ.get("CRI_ENDPOINT"))
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per RPC")
    sub = p.add_subparsers(dest="command", required=True)

    def pod_args(s):
        s.add_argument("--name", required=True)
        s.add_argument("--uid", required=True)
        s.add_argument("--namespace", default="default")
        s.add_argument("--attempt", type=int, default=0)
        s.add_argument("--hostname", default="")
        s.add_argument("--log-dir", default="")
        s.add_argument("--cgroup-parent", default="")
        s.add_argument("--label", action="append")
        s.add_argument("--annotation", action="append")
        s.add_argument("--userns", metavar="HOSTID:LENGTH",
                       help="a pod with hostUsers: false, as the kubelet sends it")

    def resource_args(s):
        s.add_argument("--memory", type=int, default=0, help="memory limit in bytes")
        s.add_argument("--cpu-period", type=int, default=0)
        s.add_argument("--cpu-quota", type=int, default=0)
        s.add_argument("--cpu-shares", type=int, default=0)

    s = sub.add_parser("version")
    s.set_defaults(fn=cmd_version)

    s = sub.add_parser("runp", help="RunPodSandbox; prints the pod sandbox id")
    pod_args(s)
    s.add_argument("--handler", default="", help="runtime_handler (RuntimeClass handler)")
    s.add_argument("--pod-network", dest="host_network", action="store_false",
                   help="a pod network namespace (needs CNI) instead of the node's")
    s.add_argument("--dns-server", action="append", help="the pod's DNS server (DNSConfig)")
    s.add_argument("--save", help="write the PodSandboxConfig here, for create --pod-config")
    s.set_defaults(fn=cmd_runp)

    s = sub.add_parser("create", help="CreateContainer; prints the container id")
    s.add_argument("--pod", required=True)
    s.add_argument("--pod-config", required=True, help="the file runp --save wrote")
    s.add_argument("--name", required=True)
    s.add_argument("--attempt", type=int, default=0)
    s.add_argument("--image", required=True)
    s.add_argument("--command", action="append", default=[])
    s.add_argument("--workdir", default="")
    s.add_argument("--env", action="append")
    s.add_argument("--label", action="append")
    s.add_argument("--annotation", action="append")
    s.add_argument("--log-path", default="")
    s.add_argument("--pod-network", dest="host_network", action="store_false")
    s.add_argument("--userns", metavar="HOSTID:LENGTH",
                   help="the pod's user namespace mapping, as the kubelet repeats it")
    resource_args(s)
    s.add_argument("args", nargs="*")
    s.set_defaults(fn=cmd_create)

    for name, fn in (("start", cmd_start), ("rm", cmd_rm), ("stopp", cmd_stopp),
                     ("rmp", cmd_rmp), ("status", cmd_status), ("podstatus", cmd_podstatus)):
        s = sub.add_parser(name)
        s.add_argument("id")
        s.set_defaults(fn=fn)

    s = sub.add_parser("stop")
    s.add_argument("--grace", type=int, default=0, help="grace period in seconds")
    s.add_argument("id")
    s.set_defaults(fn=cmd_stop)

    s = sub.add_parser("exec-sync", help="ExecSync: the command's stdout, stderr and exit code")
    s.add_argument("--exec-timeout", type=int, default=0)
    s.add_argument("id")
    s.add_argument("cmd", nargs=argparse.REMAINDER)
    s.set_defaults(fn=cmd_exec_sync)

    s = sub.add_parser("update", help="UpdateContainerResources")
    s.add_argument("id")
    resource_args(s)
    s.set_defaults(fn=cmd_update)

    s = sub.add_parser("listp")
    s.set_defaults(fn=cmd_listp)
    s = sub.add_parser("cleanup")
    s.set_defaults(fn=cmd_cleanup)

    a = p.parse_args()
    if not a.endpoint:
        die("no endpoint: --endpoint unix:///PATH or CRI_ENDPOINT")
    a.fn(Client(a.endpoint, a.timeout), a)


if __name__ == "__main__":
    main()
