/**
 * Loads THE API definition (proto/*.proto) with the google.api and
 * google.rpc protos it needs: those are copies in third_party/googleapis
 * (tools/third_party.ts), and google/protobuf/descriptor.proto, which they
 * import, is the one protobufjs ships. The other google/protobuf files are
 * built into protobufjs.
 */
import protobuf from "protobufjs";

const PROTO_DIR = new URL("../proto/", import.meta.url);
const GOOGLEAPIS_DIR = new URL("../third_party/googleapis/", import.meta.url);
/** <protobufjs>/index.js -> <protobufjs>/google/protobuf/ */
const PROTOBUF_DIR = new URL(
  "./google/protobuf/",
  import.meta.resolve("protobufjs"),
);

/** The .proto files of the API, relative to proto/. */
export const API_FILES = [
  "cluster.proto",
  "compute_template.proto",
  "job.proto",
  "serve.proto",
  "job_submission.proto",
  "quota.proto",
];

/**
 * KubeRay's current messages, relative to proto/, for the second gRPC port
 * (--kuberay-grpc-port; proto/kuberay/cluster.proto says why): not the API
 * definition, which API_FILES are.
 */
export const KUBERAY_FILES = [
  "kuberay/cluster.proto",
  "kuberay/config.proto",
  "kuberay/job.proto",
  "kuberay/serve.proto",
];

/** KubeRay's current messages and services (KUBERAY_FILES), loaded. */
export function loadKubeRaySchema(): Promise<ApiSchema> {
  return loadApiSchema(
    KUBERAY_FILES.map((f) => new URL(f, PROTO_DIR).pathname),
  );
}

/** google.* protos the adapters need besides those the API imports. */
const EXTRA_GOOGLE_FILES = [
  "google/rpc/status.proto",
  "google/rpc/error_details.proto",
];

export interface ApiSchema {
  root: protobuf.Root;
  /** The API's services, in definition order. */
  services: protobuf.Service[];
}

/** Parses and resolves the API definition; throws naming the bad file. */
export async function loadApiSchema(
  files: string[] = API_FILES.map((f) => new URL(f, PROTO_DIR).pathname),
): Promise<ApiSchema> {
  const root = new protobuf.Root();
  root.resolvePath = (origin, target) =>
    target.startsWith("google/protobuf/")
      ? new URL(target.slice("google/protobuf/".length), PROTOBUF_DIR).pathname
      : target.startsWith("google/")
      ? new URL(target, GOOGLEAPIS_DIR).pathname
      : protobuf.util.path.resolve(origin, target);
  await root.load([...files, ...EXTRA_GOOGLE_FILES], {
    keepCase: false,
    alternateCommentMode: true,
  });
  root.resolveAll();
  const apiFiles = new Set(files);
  const services: protobuf.Service[] = [];
  collectServices(root, (s) => {
    if (s.filename && apiFiles.has(s.filename)) services.push(s);
  });
  // The files load concurrently, so the root holds them in whichever order
  // they finished: order services by file as given, then by definition.
  const fileOrder = files.indexOf.bind(files);
  services.sort((a, b) => fileOrder(a.filename!) - fileOrder(b.filename!));
  return { root, services };
}

function collectServices(
  ns: protobuf.NamespaceBase,
  visit: (service: protobuf.Service) => void,
): void {
  for (const nested of ns.nestedArray) {
    if (nested instanceof protobuf.Service) visit(nested);
    else if (nested instanceof protobuf.Namespace) {
      collectServices(nested, visit);
    }
  }
}

/** "proto.ClusterService" */
export function serviceName(service: protobuf.Service): string {
  return service.fullName.replace(/^\./, "");
}

/** "proto.ClusterService/CreateCluster", the key of a method's handler. */
export function methodKey(method: protobuf.Method): string {
  return `${serviceName(method.parent as protobuf.Service)}/${method.name}`;
}
