#!/usr/bin/python3
"""Python stubs of one generation of KubeRay's protos, round-tripping every
field of a compute template, a cluster, a job and a service through Corral.

For tests/grpc_stubs_round_trip_test.ts, which runs it with Debian's
/usr/bin/python3 (python3-grpcio, python3-grpc-tools). It compiles the .proto
files of a flavor into a temporary directory with grpc_tools, as a client of
that generation would, and, for each kind in turn, with the samples given as
proto3 JSON (the test's, which between them set every field), reports:

- `uncovered`: the fields, found by reflection of the stubs' descriptors, that
  no sample sets (OUTPUT_ONLY fields aside): the samples must cover every
  field the stubs have, whatever the .proto files come to hold;

and per sample:

- `refused`: what a create was refused with (code 3, one field violation
  each), the field then cleared from the sample and the create made again,
  until it is taken: so a field Corral has no home for is refused by name,
  never dropped;
- `mismatches`: each field of the sample that a get does not read back as
  sent, and each field read back that was not sent (OUTPUT_ONLY fields aside,
  and INPUT_ONLY ones: Corral's ttl);
- whether the list held it (read back as sent), whether the delete took it
  and what a get answers after.

Prints the report as JSON. Arguments: FLAVOR (kuberay: proto/kuberay/, on
the second port; corral: proto/, KubeRay v0.6.0's numbering, on the main one),
TARGET (host:port) and SAMPLES (a JSON file: namespace, per kind a list of
sample messages, and serverSet, see mismatches()).
"""

import importlib
import json
import os
import sys
import tempfile
import time

import grpc
from google.protobuf import json_format

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
# No __pycache__ left in the repository by this import.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "examples"))
import python_client  # noqa: E402  (its stub generation's helpers)

GOOGLE_PROTOS = os.path.join(ROOT, "third_party", "googleapis")

# Per flavor: its directory and, per kind, the file of its service.
FLAVORS = {
    "kuberay": {"dir": os.path.join(ROOT, "proto", "kuberay"),
                "template": "config", "cluster": "cluster", "job": "job",
                "service": "serve"},
    "corral": {"dir": os.path.join(ROOT, "proto"),
               "template": "compute_template", "cluster": "cluster",
               "job": "job", "service": "serve"},
}

# Per kind: service, request field of the create, message, RPCs, list field.
KINDS = {
    "template": ("ComputeTemplateService", "compute_template", "ComputeTemplate",
                 ("CreateComputeTemplate", "GetComputeTemplate",
                  "ListComputeTemplates", "DeleteComputeTemplate"),
                 "compute_templates"),
    "cluster": ("ClusterService", "cluster", "Cluster",
                ("CreateCluster", "GetCluster", "ListCluster", "DeleteCluster"),
                "clusters"),
    "job": ("RayJobService", "job", "RayJob",
            ("CreateRayJob", "GetRayJob", "ListRayJobs", "DeleteRayJob"), "jobs"),
    "service": ("RayServeService", "service", "RayService",
                ("CreateRayService", "GetRayService", "ListRayServices",
                 "DeleteRayService"), "services"),
}
ORDER = ["template", "cluster", "job", "service"]
OUTPUT_ONLY = 3  # google.api.FieldBehavior
INPUT_ONLY = 4


def compile_flavor(flavor, out_dir):
    """The flavor's modules, by file stem: message and gRPC modules."""
    from grpc_tools import protoc

    spec = FLAVORS[flavor]
    stems = sorted({spec[kind] for kind in ORDER})
    src = os.path.join(out_dir, "src")
    os.makedirs(src)
    texts = []
    for stem in stems:
        with open(os.path.join(spec["dir"], stem + ".proto"), encoding="utf-8") as f:
            texts.append(python_client.lower_proto3_optional(f.read()))
        with open(os.path.join(src, stem + ".proto"), "w", encoding="utf-8") as f:
            f.write(texts[-1])
    includes = ["-I" + d for d in [src, GOOGLE_PROTOS, python_client.grpc_tools_include_dir()]]
    google = python_client.google_imports(texts, GOOGLE_PROTOS)
    google += [p for p in ["google/rpc/status.proto", "google/rpc/error_details.proto"]
               if p not in google]
    # Lowered as the API's files are (error_details.proto has `optional`).
    for path in google:
        with open(os.path.join(GOOGLE_PROTOS, path), encoding="utf-8") as f:
            text = python_client.lower_proto3_optional(f.read())
        os.makedirs(os.path.dirname(os.path.join(src, path)), exist_ok=True)
        with open(os.path.join(src, path), "w", encoding="utf-8") as f:
            f.write(text)
    status = protoc.main(["protoc"] + includes + ["--python_out=" + out_dir,
                         "--grpc_python_out=" + out_dir] + [s + ".proto" for s in stems])
    status = status or protoc.main(["protoc"] + includes + ["--python_out=" + out_dir] + google)
    if status != 0:
        sys.exit("protoc failed (see above)")
    sys.path.insert(0, out_dir)
    importlib.invalidate_caches()
    return {stem: (importlib.import_module(stem + "_pb2"),
                   importlib.import_module(stem + "_pb2_grpc")) for stem in stems}


def behaviors(field):
    from google.api import field_behavior_pb2

    return field.GetOptions().Extensions[field_behavior_pb2.field_behavior]


def output_only(field):
    return OUTPUT_ONLY in behaviors(field)


def not_read_back(field):
    """OUTPUT_ONLY fields and INPUT_ONLY ones (Corral's ttl)."""
    return OUTPUT_ONLY in behaviors(field) or INPUT_ONLY in behaviors(field)


def is_set(message, field):
    if field.label == field.LABEL_REPEATED:
        return len(getattr(message, field.name)) > 0
    if field.message_type is not None or field.containing_oneof is not None:
        return message.HasField(field.name)
    return getattr(message, field.name) != field.default_value


def values_of(message, field):
    """The messages a message field of `message` holds."""
    value = getattr(message, field.name)
    if field.message_type is None or not is_set(message, field):
        return []
    if field.message_type.GetOptions().map_entry:
        value_field = field.message_type.fields_by_name["value"]
        return list(value.values()) if value_field.message_type else []
    return list(value) if field.label == field.LABEL_REPEATED else [value]


def set_fields(message, seen):
    """Adds (message type, field) for every field set in `message`, deep."""
    for field in message.DESCRIPTOR.fields:
        if is_set(message, field):
            seen.add((message.DESCRIPTOR.full_name, field.name))
        for inner in values_of(message, field):
            set_fields(inner, seen)


def all_fields(descriptor, found, visited):
    """Every (message type, field) reachable from `descriptor`, OUTPUT_ONLY
    fields and what only they reach aside."""
    if descriptor.full_name in visited or descriptor.full_name.startswith("google.protobuf."):
        return
    visited.add(descriptor.full_name)
    for field in descriptor.fields:
        if output_only(field):
            continue
        found.add((descriptor.full_name, field.name))
        inner = field.message_type
        if inner is not None and inner.GetOptions().map_entry:
            inner = inner.fields_by_name["value"].message_type
        if inner is not None:
            all_fields(inner, found, visited)


def violations_of(error):
    """The field violations of a refusal's google.rpc.BadRequest."""
    from google.rpc import error_details_pb2, status_pb2

    for key, value in error.trailing_metadata() or []:
        if key == "grpc-status-details-bin":
            status = status_pb2.Status.FromString(value)
            for detail in status.details:
                bad = error_details_pb2.BadRequest()
                if detail.Unpack(bad):
                    return [{"field": v.field, "description": v.description}
                            for v in bad.field_violations]
    return []


def clear_path(message, path, whole_item):
    """Clears the field a violation names ("cluster.clusterSpec.x[0].y",
    past the request's own field), or with `whole_item` the innermost list
    item on its path (a volume whose type Corral does not take); False if
    the path leads nowhere."""
    parts = path.replace("]", "").replace("[", ".").split(".")[1:]
    item = None
    i = 0
    while i < len(parts):
        field = next((f for f in message.DESCRIPTOR.fields
                      if parts[i] in (f.json_name, f.name)), None)
        if field is None:
            return False
        value = getattr(message, field.name)
        is_map = field.message_type is not None and field.message_type.GetOptions().map_entry
        if i == len(parts) - 1 or is_map or field.message_type is None:
            if whole_item and item is not None:
                del item[0][item[1]]
            else:
                message.ClearField(field.name)
            return True
        if field.label == field.LABEL_REPEATED:
            if i + 1 >= len(parts) or not parts[i + 1].isdigit():
                return False
            index = int(parts[i + 1])
            if index >= len(value):
                return False
            item = (value, index)
            message = value[index]
            i += 2
            if i == len(parts):
                del value[index]
                return True
        else:
            message = value
            i += 1
    return False


def as_dict(message):
    return json_format.MessageToDict(message)


def mismatches(sent, got, server_set):
    """Fields sent and not read back as sent, or read back and not sent;
    `server_set` names top-level fields the server sets: the etag, always
    its own, and the expiry time a ttl gives, when none was sent."""
    def strip(message):
        copy = type(message)()
        copy.CopyFrom(message)
        drop_output_only(copy)
        return as_dict(copy)

    sent, got = strip(sent), strip(got)
    for name in server_set.get("always", []):
        sent.pop(name, None)
        got.pop(name, None)
    for name in server_set.get("unlessSent", []):
        if name not in sent:
            got.pop(name, None)
    problems = []
    compare(sent, got, "", problems)
    return problems


def drop_output_only(message):
    for field in message.DESCRIPTOR.fields:
        if not_read_back(field):
            message.ClearField(field.name)
            continue
        for inner in values_of(message, field):
            drop_output_only(inner)


def compare(sent, got, path, problems):
    if isinstance(sent, dict) and isinstance(got, dict):
        for key in sorted(set(sent) | set(got)):
            compare(sent.get(key), got.get(key), f"{path}.{key}", problems)
    elif isinstance(sent, list) and isinstance(got, list) and len(sent) == len(got):
        for i, (s, g) in enumerate(zip(sent, got)):
            compare(s, g, f"{path}[{i}]", problems)
    elif sent != got:
        problems.append({"field": path[1:], "sent": sent, "got": got})


def round_trip(modules, flavor, kind, sample_json, server_set, channel):
    """Create, get and list of one sample of `kind`: its report."""
    service, field, message_name, rpcs, list_field = KINDS[kind]
    module, grpc_module = modules[FLAVORS[flavor][kind]]
    stub = getattr(grpc_module, service + "Stub")(channel)
    create, get, list_, _ = (getattr(stub, rpc) for rpc in rpcs)
    sample = json_format.ParseDict(sample_json, getattr(module, message_name)())
    report = {"name": sample.name, "refused": [], "mismatches": []}
    request_type = getattr(module, rpcs[0] + "Request")
    for _ in range(100):
        try:
            create(request_type(**{field: sample, "namespace": sample.namespace}),
                   timeout=30)
            break
        except grpc.RpcError as error:
            found = violations_of(error) if error.code() == grpc.StatusCode.INVALID_ARGUMENT else []
            report["refused"] += found
            # Fields first, then whole items, later ones first: taking out an
            # item moves those after it.
            fields = [v for v in found if v["description"].startswith("unknown field")]
            items = sorted((v for v in found if v not in fields),
                           key=lambda v: v["field"], reverse=True)
            cleared = [clear_path(sample, v["field"], False) for v in fields]
            cleared += [clear_path(sample, v["field"], True) for v in items]
            if not found or not all(cleared):
                report["createFailed"] = {"code": error.code().value[0],
                                          "message": error.details()}
                return report
    namespace = sample.namespace
    got = get(getattr(module, rpcs[1] + "Request")(name=sample.name, namespace=namespace),
              timeout=30)
    report["mismatches"] = mismatches(sample, got, server_set)
    list_request = getattr(module, list_request_name(module, rpcs[2]))
    # KubeRay's lists of clusters and jobs page with `limit`, of services
    # with `page_size`, as Corral's all do; templates do not page.
    paging = {name: 100 for name in ["limit", "page_size"]
              if name in list_request.DESCRIPTOR.fields_by_name}
    listed = list_(list_request(namespace=namespace, **paging), timeout=30)
    # As read back by the get, but for what the server changes meanwhile
    # (a queued cluster's state, its etag).
    report["listed"] = [mismatches(sample, m, server_set) == []
                        for m in getattr(listed, list_field)
                        if m.name == sample.name] == [True]
    return report


def coverage(modules, flavor, kind, samples):
    """The fields of `kind` that none of `samples` sets."""
    _, _, message_name, _, _ = KINDS[kind]
    module, _ = modules[FLAVORS[flavor][kind]]
    found, seen = set(), set()
    for sample_json in samples:
        sample = json_format.ParseDict(sample_json, getattr(module, message_name)())
        all_fields(sample.DESCRIPTOR, found, set())
        set_fields(sample, seen)
    return sorted(f"{m}.{f}" for m, f in found - seen)


def list_request_name(module, rpc):
    # KubeRay's ListCluster takes ListClustersRequest.
    return rpc + "Request" if hasattr(module, rpc + "Request") else rpc.replace(
        "Cluster", "Clusters") + "Request"


def delete(modules, flavor, kind, name, namespace, channel):
    service, _, _, rpcs, _ = KINDS[kind]
    module, grpc_module = modules[FLAVORS[flavor][kind]]
    stub = getattr(grpc_module, service + "Stub")(channel)

    def request(rpc):
        return getattr(module, rpc + "Request")(name=name, namespace=namespace)

    answer = {"deleted": True}
    try:
        getattr(stub, rpcs[3])(request(rpcs[3]), timeout=30)
    except grpc.RpcError as error:
        answer = {"deleted": False, "code": error.code().value[0], "message": error.details()}
    # A deleted object may linger while Kubernetes finishes deleting it.
    for _ in range(300):
        try:
            getattr(stub, rpcs[1])(request(rpcs[1]), timeout=30)
            answer["afterDelete"] = 0
        except grpc.RpcError as error:
            answer["afterDelete"] = error.code().value[0]
            break
        time.sleep(0.1)
    return answer


def main(flavor, target, samples_file):
    with open(samples_file, encoding="utf-8") as f:
        samples = json.load(f)
    namespace = samples["namespace"]
    report = {}
    with tempfile.TemporaryDirectory(prefix="corral-stubs-") as out_dir:
        modules = compile_flavor(flavor, out_dir)
        # A refusal of many fields names each of them twice (the message and
        # its BadRequest), beyond grpcio's 8 KiB of metadata by default.
        options = [("grpc.max_metadata_size", 1 << 20)]
        with grpc.insecure_channel(target, options=options) as channel:
            for kind in ORDER:
                report[kind] = {
                    "uncovered": coverage(modules, flavor, kind, samples[kind]),
                    "samples": [round_trip(modules, flavor, kind, sample,
                                           samples.get("serverSet", {}), channel)
                                for sample in samples[kind]],
                }
            for kind in reversed(ORDER):
                for sample in report[kind]["samples"]:
                    sample.update(delete(modules, flavor, kind, sample["name"],
                                         namespace, channel))
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main(*sys.argv[1:4])
