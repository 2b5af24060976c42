#!/usr/bin/python3
"""A small gRPC client for Corral, written against nothing but proto/.

It generates Python stubs from proto/cluster.proto and
proto/compute_template.proto into a temporary directory with grpc_tools,
calls one RPC and prints the answer as proto3 JSON: the same JSON the HTTP
gateway returns for the same call. On an error it prints
{"code": N, "message": "..."} (the gRPC status) and exits with 1; a
mistake on this side (bad arguments, unreadable JSON) exits with 2.

Requirements (Debian 12): apt-get install python3-grpcio python3-grpc-tools
and run it with /usr/bin/python3: a pyenv or venv python3 does not see
Debian's packages.

The google/api/*.proto files the API imports are the repository's copies in
third_party/googleapis (--google-protos to use others); google/protobuf/*.proto
come with grpc_tools. From the repository root, against Corral's default gRPC
port:

    C="/usr/bin/python3 examples/python_client.py"
    $C create-template -n team-a --name small --cpu 2 --memory 4
    $C create-cluster -n team-a --json '{
        "name": "blue", "user": "ada", "version": "2.9.0",
        "clusterSpec": {
          "headGroupSpec": {"computeTemplate": "small"},
          "workerGroupSpec": [{"groupName": "workers",
                               "computeTemplate": "small", "replicas": 2}]}}'
    $C get-cluster -n team-a --name blue
    $C list-all-clusters
    $C delete-cluster -n team-a --name blue

Add --target HOST:PORT for another server; --help lists every command.
"""

import argparse
import importlib
import json
import os
import re
import sys
import tempfile

import grpc
from google.protobuf import json_format

PROTO_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "proto")
API_FILES = ["cluster.proto", "compute_template.proto"]
IMPORT = re.compile(r'^\s*import\s+(?:public\s+|weak\s+)?"([^"]+)"\s*;', re.MULTILINE)


def fail(message):
    """A mistake on this side of the wire: stderr and exit code 2."""
    print(f"python_client.py: {message}", file=sys.stderr)
    sys.exit(2)


def grpc_tools_include_dir():
    """The directory of google/protobuf/*.proto that grpc_tools ships."""
    try:
        from importlib.resources import files

        return str(files("grpc_tools") / "_proto")
    except (ImportError, TypeError):
        import pkg_resources

        return pkg_resources.resource_filename("grpc_tools", "_proto")


def lower_proto3_optional(text):
    """Rewrites `optional T x = N;` as `oneof _x { T x = N; }`.

    Debian 12's python3-grpc-tools (1.14) bundles protoc 3.5, which predates
    proto3 `optional` (protoc 3.15). protoc itself lowers such a field to a
    one-field oneof named `_x`: the wire format and the field's presence
    (HasField, JSON output of an explicit 0) are the same, so this rewrite
    changes nothing a server can see. With a newer protoc it is harmless.
    """
    return re.sub(
        r"^(\s*)optional\s+([\w.]+)\s+(\w+)\s*=\s*(\d+)([^;]*);",
        r"\1oneof _\3 { \2 \3 = \4\5; }",
        text,
        flags=re.MULTILINE,
    )


def google_imports(texts, google_protos):
    """The google/* files the API imports, directly or not, except
    google/protobuf/*, whose Python modules come with the protobuf package."""
    found, pending = [], list(texts)
    while pending:
        for path in IMPORT.findall(pending.pop()):
            wanted = path.startswith("google/") and not path.startswith("google/protobuf/")
            if wanted and path not in found:
                found.append(path)
                with open(os.path.join(google_protos, path), encoding="utf-8") as f:
                    pending.append(f.read())
    return found


def generate_stubs(google_protos, out_dir):
    """Compiles the API into out_dir and imports it; returns the modules."""
    from grpc_tools import protoc

    src_dir = os.path.join(out_dir, "src")
    os.makedirs(src_dir)
    texts = []
    for name in API_FILES:
        with open(os.path.join(PROTO_DIR, name), encoding="utf-8") as f:
            texts.append(lower_proto3_optional(f.read()))
        with open(os.path.join(src_dir, name), "w", encoding="utf-8") as f:
            f.write(texts[-1])
    includes = [src_dir, google_protos, grpc_tools_include_dir()]
    status = protoc.main(
        ["protoc"]
        + ["-I" + d for d in includes]
        + ["--python_out=" + out_dir, "--grpc_python_out=" + out_dir]
        + API_FILES
    )
    status = status or protoc.main(
        ["protoc"]
        + ["-I" + d for d in includes]
        + ["--python_out=" + out_dir]
        + google_imports(texts, google_protos)
    )
    if status != 0:
        fail("protoc failed (see above); is --google-protos right?")
    sys.path.insert(0, out_dir)
    importlib.invalidate_caches()
    return {
        name: importlib.import_module(name)
        for name in [
            "cluster_pb2",
            "cluster_pb2_grpc",
            "compute_template_pb2",
            "compute_template_pb2_grpc",
        ]
    }


def to_json(message):
    """proto3 JSON as the HTTP gateway writes it: lowerCamelCase names,
    fields with no presence always printed (0, "", [], {})."""
    try:  # protobuf >= 5.26
        return json_format.MessageToJson(
            message,
            preserving_proto_field_name=False,
            always_print_fields_with_no_presence=True,
        )
    except TypeError:  # older protobuf, e.g. Debian 12's 3.21
        return json_format.MessageToJson(
            message,
            preserving_proto_field_name=False,
            including_default_value_fields=True,
        )


def read_json_argument(args, message):
    """Parses --json TEXT or --file PATH ('-' for stdin) into message."""
    if args.json is not None:
        text = args.json
    elif args.file == "-":
        text = sys.stdin.read()
    else:
        with open(args.file, encoding="utf-8") as f:
            text = f.read()
    try:
        return json_format.Parse(text, message)
    except json_format.ParseError as error:
        fail(f"Cannot read the request body: {error}")


# Each subcommand: (service, method, function building the request).
def build_calls(pb):
    c, t = pb["cluster_pb2"], pb["compute_template_pb2"]
    return {
        "create-template": (
            "ComputeTemplateService",
            "CreateComputeTemplate",
            lambda a: t.CreateComputeTemplateRequest(
                namespace=a.namespace,
                compute_template=t.ComputeTemplate(
                    name=a.name,
                    namespace=a.namespace,
                    cpu=a.cpu,
                    memory=a.memory,
                    gpu=a.gpu,
                    gpu_accelerator=a.gpu_accelerator,
                ),
            ),
        ),
        "get-template": (
            "ComputeTemplateService",
            "GetComputeTemplate",
            lambda a: t.GetComputeTemplateRequest(namespace=a.namespace, name=a.name),
        ),
        "list-templates": (
            "ComputeTemplateService",
            "ListComputeTemplates",
            lambda a: t.ListComputeTemplatesRequest(namespace=a.namespace),
        ),
        "list-all-templates": (
            "ComputeTemplateService",
            "ListAllComputeTemplates",
            lambda a: t.ListAllComputeTemplatesRequest(),
        ),
        "delete-template": (
            "ComputeTemplateService",
            "DeleteComputeTemplate",
            lambda a: t.DeleteComputeTemplateRequest(namespace=a.namespace, name=a.name),
        ),
        "create-cluster": (
            "ClusterService",
            "CreateCluster",
            lambda a: c.CreateClusterRequest(
                namespace=a.namespace, cluster=read_json_argument(a, c.Cluster())
            ),
        ),
        "get-cluster": (
            "ClusterService",
            "GetCluster",
            lambda a: c.GetClusterRequest(namespace=a.namespace, name=a.name),
        ),
        "list-clusters": (
            "ClusterService",
            "ListCluster",
            lambda a: c.ListClustersRequest(namespace=a.namespace),
        ),
        "list-all-clusters": (
            "ClusterService",
            "ListAllClusters",
            lambda a: c.ListAllClustersRequest(),
        ),
        "delete-cluster": (
            "ClusterService",
            "DeleteCluster",
            lambda a: c.DeleteClusterRequest(namespace=a.namespace, name=a.name),
        ),
    }


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description="Call Corral over gRPC and print the answer as proto3 JSON.",
        epilog="Run with /usr/bin/python3 (Debian's python3-grpcio and python3-grpc-tools).",
    )
    parser.add_argument(
        "--target", default="127.0.0.1:8887", help="gRPC host:port (default %(default)s)"
    )
    parser.add_argument(
        "--google-protos",
        default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "third_party", "googleapis"),
        metavar="DIR",
        help="directory holding google/api/annotations.proto (default: the repository's third_party/googleapis)",
    )
    parser.add_argument(
        "--timeout", type=float, default=30, help="deadline in seconds (default %(default)s)"
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name, summary, namespace=True, name_arg=False):
        sub = commands.add_parser(name, help=summary)
        if namespace:
            sub.add_argument("-n", "--namespace", required=True)
        if name_arg:
            sub.add_argument("--name", required=True)
        return sub

    template = command("create-template", "create a compute template", name_arg=True)
    template.add_argument("--cpu", type=int, required=True, help="CPU cores")
    template.add_argument("--memory", type=int, required=True, help="memory in GiB")
    template.add_argument("--gpu", type=int, default=0, help="number of GPUs")
    template.add_argument(
        "--gpu-accelerator", default="", help="GPU resource name (default nvidia.com/gpu)"
    )
    command("get-template", "get a compute template", name_arg=True)
    command("list-templates", "list the compute templates of a namespace")
    command(
        "list-all-templates", "list the compute templates of every namespace", namespace=False
    )
    command("delete-template", "delete a compute template", name_arg=True)

    cluster = command("create-cluster", "create a cluster from its proto3 JSON")
    body = cluster.add_mutually_exclusive_group(required=True)
    body.add_argument("--json", help="the Cluster as proto3 JSON")
    body.add_argument(
        "--file", help="a file holding the Cluster as proto3 JSON ('-' for stdin)"
    )
    command("get-cluster", "get a cluster", name_arg=True)
    command("list-clusters", "list the clusters of a namespace")
    command("list-all-clusters", "list the clusters of every namespace", namespace=False)
    command("delete-cluster", "delete a cluster", name_arg=True)
    return parser.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="corral-stubs-") as out_dir:
        pb = generate_stubs(args.google_protos, out_dir)
    service, method, build = build_calls(pb)[args.command]
    request = build(args)
    stubs = "cluster_pb2_grpc" if service == "ClusterService" else "compute_template_pb2_grpc"
    with grpc.insecure_channel(args.target) as channel:
        stub = getattr(pb[stubs], service + "Stub")(channel)
        try:
            response = getattr(stub, method)(request, timeout=args.timeout)
        except grpc.RpcError as error:
            # The gRPC status: the same code and message as the HTTP error body.
            status = {"code": error.code().value[0], "message": error.details() or ""}
            print(json.dumps(status))
            return 1
    print(to_json(response))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
