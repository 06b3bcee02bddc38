#!/usr/bin/python3
"""Runs one container through a CRI runtime service, as the kubelet does.

    cri-run.py [OPTIONS] -- COMMAND [ARG...]

A pod sandbox with the node's network (no CNI needed) and, in it, one
container of IMAGE running COMMAND, created with the given runtime handler
(the RuntimeClass's handler), environment, CDI devices (the CRI CDIDevices
field) and annotations (cdi.k8s.io/... for the annotation form).  Waits for
the container to exit, writes what it wrote (stdout and stderr, from the
CRI log file) and exits with its exit code; removes the container and the
sandbox whatever happened.  A CRI call that fails is one line on stderr
naming the call, and exit status 125.

    cri-run.py --ready      exits 0 once the runtime reports RuntimeReady
    cri-run.py --remove-all stops and removes every pod sandbox

The Python stubs are generated once from the CRI api.proto (--proto) into
--stubs with grpc_tools (python3-grpc-tools); the gogoproto options of the
Go package's copy are left out (they only steer Go code generation).
"""

import argparse
import os
import sys
import time
import uuid

API_PROTO = "/usr/share/gocode/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto"
EXIT_CRI = 125


def load_stubs(proto, stubs):
    """Imports api_pb2 and api_pb2_grpc from STUBS, generating them first."""
    if not os.path.exists(os.path.join(stubs, "api_pb2_grpc.py")):
        from grpc_tools import protoc

        os.makedirs(stubs, exist_ok=True)
        src = os.path.join(stubs, "api.proto")
        with open(proto, encoding="utf-8") as f:
            lines = [
                line
                for line in f
                if not line.startswith('import "github.com/gogo/')
                and not line.startswith("option (gogoproto.")
            ]
        with open(src, "w", encoding="utf-8") as f:
            f.writelines(lines)
        rc = protoc.main(
            ["protoc", "-I" + stubs, "--python_out=" + stubs, "--grpc_python_out=" + stubs, src]
        )
        if rc != 0:
            sys.exit("cri-run: protoc could not compile %s (from %s)" % (src, proto))
    sys.path.insert(0, stubs)
    import api_pb2  # pylint: disable=import-error,import-outside-toplevel
    import api_pb2_grpc  # pylint: disable=import-error,import-outside-toplevel

    return api_pb2, api_pb2_grpc


def key_value(text):
    """KEY=VALUE of an option, split at the first '='."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError("expected KEY=VALUE, got %r" % text)
    return key, value


def parse_args(argv):
    p = argparse.ArgumentParser(prog="cri-run.py", description="Run one container through CRI.")
    p.add_argument("--endpoint", default="unix:///run/containerd/containerd.sock")
    p.add_argument("--proto", default=API_PROTO)
    p.add_argument("--stubs", required=True, help="directory of the generated Python stubs")
    p.add_argument("--image", default="docker.io/library/busybox:latest")
    p.add_argument("--runtime-handler", default="", help="the RuntimeClass handler (default: the runtime's default)")
    p.add_argument("--env", action="append", type=key_value, default=[])
    p.add_argument("--cdi-device", action="append", default=[], help="a fully qualified CDI device name")
    p.add_argument("--annotation", action="append", type=key_value, default=[], help="a container annotation")
    p.add_argument(
        "--mount", action="append", type=key_value, default=[], help="HOST=CONTAINER: a read-only bind mount"
    )
    p.add_argument("--log-dir", default="/tmp/cri-run-logs")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds the container may run")
    p.add_argument("--ready", action="store_true")
    p.add_argument("--remove-all", action="store_true")
    p.add_argument("command", nargs="*")
    a = p.parse_args(argv)
    if not a.ready and not a.remove_all and not a.command:
        p.error("a COMMAND is needed (after --)")
    return a


class CriError(Exception):
    """A failed CRI call: the call's name and the runtime's message."""


class Cri:
    def __init__(self, pb, grpc_mod, stub_mod, endpoint):
        self.pb = pb
        self.channel = grpc_mod.insecure_channel(endpoint)
        self.stub = stub_mod.RuntimeServiceStub(self.channel)
        self.grpc = grpc_mod

    def call(self, name, request, timeout=60):
        try:
            return getattr(self.stub, name)(request, timeout=timeout)
        except self.grpc.RpcError as e:
            raise CriError("%s: %s" % (name, e.details() if hasattr(e, "details") else e)) from None

    def ready(self):
        status = self.call("Status", self.pb.StatusRequest(), timeout=5).status
        return any(c.type == "RuntimeReady" and c.status for c in status.conditions)

    def remove_pod(self, pod_id):
        self.call("StopPodSandbox", self.pb.StopPodSandboxRequest(pod_sandbox_id=pod_id))
        self.call("RemovePodSandbox", self.pb.RemovePodSandboxRequest(pod_sandbox_id=pod_id))

    def remove_all(self):
        for pod in self.call("ListPodSandbox", self.pb.ListPodSandboxRequest()).items:
            self.remove_pod(pod.id)


def host_network(pb):
    return pb.NamespaceOption(network=pb.NODE)


def pod_config(pb, args):
    """The sandbox's configuration: no hostname, as the kubelet does for a pod
    on the node's network (it shares the node's UTS namespace)."""
    name = "cri-run-%d-%s" % (os.getpid(), uuid.uuid4().hex[:8])
    logs = os.path.join(args.log_dir, name)
    os.makedirs(logs, exist_ok=True)
    return pb.PodSandboxConfig(
        metadata=pb.PodSandboxMetadata(name=name, uid=str(uuid.uuid4()), namespace="cri-run", attempt=0),
        log_directory=logs,
        linux=pb.LinuxPodSandboxConfig(
            security_context=pb.LinuxSandboxSecurityContext(namespace_options=host_network(pb))
        ),
    )


def container_config(pb, args):
    return pb.ContainerConfig(
        metadata=pb.ContainerMetadata(name="main", attempt=0),
        image=pb.ImageSpec(image=args.image),
        command=args.command,
        envs=[pb.KeyValue(key=k, value=v) for k, v in args.env],
        annotations=dict(args.annotation),
        mounts=[pb.Mount(host_path=h, container_path=c, readonly=True) for h, c in args.mount],
        log_path="main.log",
        linux=pb.LinuxContainerConfig(
            security_context=pb.LinuxContainerSecurityContext(namespace_options=host_network(pb))
        ),
        CDI_devices=[pb.CDIDevice(name=n) for n in args.cdi_device],
    )


def write_log(path):
    """Writes a CRI log file's lines (TIME STREAM TAG TEXT) to our stdout and
    stderr; a P(artial) tag continues on the next line of that stream."""
    try:
        f = open(path, encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return
    with f:
        for line in f:
            parts = line.rstrip("\n").split(" ", 3)
            if len(parts) < 3:
                continue
            text = parts[3] if len(parts) == 4 else ""
            out = sys.stderr if parts[1] == "stderr" else sys.stdout
            out.write(text if parts[2] == "P" else text + "\n")
    sys.stdout.flush()
    sys.stderr.flush()


def run(cri, pb, args):
    """Returns the container's exit code."""
    config = pod_config(pb, args)
    pod_id = cri.call(
        "RunPodSandbox", pb.RunPodSandboxRequest(config=config, runtime_handler=args.runtime_handler)
    ).pod_sandbox_id
    try:
        cid = cri.call(
            "CreateContainer",
            pb.CreateContainerRequest(
                pod_sandbox_id=pod_id, config=container_config(pb, args), sandbox_config=config
            ),
        ).container_id
        cri.call("StartContainer", pb.StartContainerRequest(container_id=cid))
        deadline = time.monotonic() + args.timeout
        while True:
            status = cri.call("ContainerStatus", pb.ContainerStatusRequest(container_id=cid)).status
            if status.state == pb.CONTAINER_EXITED:
                break
            if time.monotonic() > deadline:
                raise CriError("the container still runs after %g s" % args.timeout)
            time.sleep(0.05)
        write_log(os.path.join(config.log_directory, "main.log"))
        return status.exit_code
    finally:
        try:
            cri.remove_pod(pod_id)
        except CriError as e:  # said, without hiding what went wrong before
            print("cri-run: removing the pod: %s" % e, file=sys.stderr)
        try:
            os.unlink(os.path.join(config.log_directory, "main.log"))
            os.rmdir(config.log_directory)
        except OSError:
            pass


def main(argv):
    args = parse_args(argv)
    pb, stub_mod = load_stubs(args.proto, args.stubs)
    import grpc  # pylint: disable=import-outside-toplevel

    cri = Cri(pb, grpc, stub_mod, args.endpoint)
    try:
        if args.ready:
            return 0 if cri.ready() else 1
        if args.remove_all:
            cri.remove_all()
            return 0
        return run(cri, pb, args)
    except CriError as e:
        print("cri-run: %s" % e, file=sys.stderr)
        return EXIT_CRI


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
