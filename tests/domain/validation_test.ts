import { NEWEST_RAY_VERSION } from "../../domain/ray_versions.ts";
import assert from "node:assert/strict";
import {
  Code,
  type FieldViolation,
  ServiceError,
} from "../../domain/errors.ts";
import { clusterAction, computeTemplateAction } from "../../domain/actions.ts";
import { validateCreateCluster } from "../../domain/cluster_validation.ts";
import {
  validateClusterKey,
  validateComputeTemplateKey,
  validateNamespace,
} from "../../domain/key_validation.ts";
import {
  missingTemplatesError,
  templateInUseError,
} from "../../domain/template_errors.ts";
import { validateCreateComputeTemplate } from "../../domain/template_validation.ts";
import { DEFAULT_LIMITS } from "../../domain/limits.ts";
import { shellWordProblem } from "../../domain/shell_words.ts";
import type {
  Cluster,
  ComputeTemplate,
  HeadGroupSpec,
  WorkerGroupSpec,
} from "../../domain/types.ts";
import {
  cluster as baseCluster,
  headGroup,
  NO_SPEC_FIELDS,
  volume,
  workerGroup,
} from "./builders.ts";

// ---------------------------------------------------------------------------
// Builders: a valid request, changed by one rule per case

/**
 * A valid create request's cluster: no namespace (the path names it), one
 * worker group.
 */
function cluster(overrides: Partial<Cluster> = {}): Cluster {
  return baseCluster({
    namespace: "",
    clusterSpec: {
      ...NO_SPEC_FIELDS,
      headGroupSpec: headGroup(),
      workerGroupSpec: [workerGroup()],
    },
    ...overrides,
  });
}

/** A cluster whose only worker group is changed. */
function withWorker(overrides: Partial<WorkerGroupSpec>): Cluster {
  return cluster({
    clusterSpec: {
      ...NO_SPEC_FIELDS,
      headGroupSpec: headGroup(),
      workerGroupSpec: [workerGroup(overrides)],
    },
  });
}

/** A cluster whose head group is changed. */
function withHead(overrides: Partial<HeadGroupSpec>): Cluster {
  return cluster({
    clusterSpec: {
      ...NO_SPEC_FIELDS,
      headGroupSpec: headGroup(overrides),
      workerGroupSpec: [],
    },
  });
}

function template(overrides: Partial<ComputeTemplate> = {}): ComputeTemplate {
  return {
    name: "big",
    namespace: "",
    cpu: 4,
    memory: 16,
    gpu: 0,
    gpuAccelerator: "",
    tolerations: [],
    extendedResources: {},
    memoryUnit: "",
    ...overrides,
  };
}

/** The violations `validate` reports: none, or an INVALID_ARGUMENT error's. */
function violationsOf(validate: () => void): {
  violations: FieldViolation[];
  message: string;
} {
  try {
    validate();
  } catch (error) {
    assert.ok(error instanceof ServiceError, `got ${error}, want ServiceError`);
    assert.equal(
      error.code,
      Code.INVALID_ARGUMENT,
      `got code ${error.code}, want ${Code.INVALID_ARGUMENT}`,
    );
    return { violations: error.fieldViolations, message: error.message };
  }
  return { violations: [], message: "" };
}

function assertViolations(got: FieldViolation[], want: FieldViolation[]) {
  assert.deepEqual(
    got,
    want,
    `got ${JSON.stringify(got, null, 1)}\nwant ${
      JSON.stringify(want, null, 1)
    }`,
  );
}

const DNS1123_LABEL =
  "must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1035_LABEL =
  "must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const DNS1123_SUBDOMAIN =
  "must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const ENV_NAME =
  "is not a valid environment variable name: must consist of alphabetic characters, digits, '_', '-' or '.', and must not start with a digit";
const EXTENDED_RESOURCE =
  'must be an extended resource name: a domain prefix outside kubernetes.io, "/" and a name, such as "nvidia.com/gpu"';

const HEAD = "cluster.clusterSpec.headGroupSpec";
const WORKER = "cluster.clusterSpec.workerGroupSpec[0]";

// ---------------------------------------------------------------------------
// validateCreateCluster

interface ClusterCase {
  name: string;
  request: { cluster?: Cluster; namespace: string };
  want: FieldViolation[];
}

function request(c: Cluster | undefined, namespace = "team-a") {
  return { cluster: c, namespace };
}

const INVALID_CLUSTER_CASES: ClusterCase[] = [
  {
    name: "rejects a missing namespace",
    request: request(cluster(), ""),
    want: [{ field: "namespace", description: "is required" }],
  },
  {
    name: "rejects a namespace that is not a DNS-1123 label",
    request: request(cluster(), "Team_A"),
    want: [{ field: "namespace", description: DNS1123_LABEL }],
  },
  {
    name: "rejects a namespace over 63 characters",
    request: request(cluster(), "a".repeat(64)),
    want: [{
      field: "namespace",
      description: "must be at most 63 characters",
    }],
  },
  {
    name: "rejects a missing cluster",
    request: request(undefined),
    want: [{ field: "cluster", description: "is required" }],
  },
  {
    name: "rejects a cluster without a name",
    request: request(cluster({ name: "" })),
    want: [{ field: "cluster.name", description: "is required" }],
  },
  {
    name: "rejects a cluster name with upper case letters",
    request: request(cluster({ name: "Blue" })),
    want: [{ field: "cluster.name", description: DNS1035_LABEL }],
  },
  {
    name:
      "rejects a cluster name starting with a digit (the operator needs a DNS-1035 label)",
    request: request(cluster({ name: "1blue" })),
    want: [{ field: "cluster.name", description: DNS1035_LABEL }],
  },
  {
    name: "rejects a cluster name ending with '-'",
    request: request(cluster({ name: "blue-" })),
    want: [{ field: "cluster.name", description: DNS1035_LABEL }],
  },
  {
    name: "rejects a cluster name with a dot",
    request: request(cluster({ name: "blue.green" })),
    want: [{ field: "cluster.name", description: DNS1035_LABEL }],
  },
  {
    name: "rejects a cluster name over 53 characters (the operator's limit)",
    request: request(cluster({ name: "a".repeat(54) })),
    want: [{
      field: "cluster.name",
      description:
        "must be at most 53 characters (the operator derives longer Kubernetes names from it)",
    }],
  },
  {
    name: "rejects a body namespace that differs from the request's",
    request: request(cluster({ namespace: "team-b" })),
    want: [{
      field: "cluster.namespace",
      description: 'must be empty or equal the request\'s namespace "team-a"',
    }],
  },
  {
    name: "rejects a cluster without a user",
    request: request(cluster({ user: "" })),
    want: [{ field: "cluster.user", description: "is required" }],
  },
  {
    name: "accepts a user a label cannot hold, such as an e-mail address",
    request: request(cluster({ user: "alice.smith@example.com" })),
    want: [],
  },
  {
    name: "rejects a user with a control character",
    request: request(cluster({ user: "alice\nbob" })),
    want: [{
      field: "cluster.user",
      description: "must not contain control characters",
    }],
  },
  {
    name: "rejects a user with white space around it",
    request: request(cluster({ user: " alice" })),
    want: [{
      field: "cluster.user",
      description: "must not begin or end with white space",
    }],
  },
  {
    name: "rejects a user over 253 characters",
    request: request(cluster({ user: "u".repeat(254) })),
    want: [{
      field: "cluster.user",
      description: "must be at most 253 characters",
    }],
  },
  {
    name: "rejects a version that is not a label value",
    request: request(cluster({ version: "2.9.0 beta" })),
    want: [{ field: "cluster.version", description: LABEL_VALUE }],
  },
  {
    name: "rejects a version over 63 characters",
    request: request(cluster({ version: "2".repeat(64) })),
    want: [{
      field: "cluster.version",
      description: "must be at most 63 characters",
    }],
  },
  {
    name: "rejects an environment variable name starting with a digit",
    request: request(cluster({ envs: { "1BAD": "x" } })),
    want: [{ field: 'cluster.envs["1BAD"]', description: ENV_NAME }],
  },
  {
    name: "rejects an environment variable name with '='",
    request: request(cluster({ envs: { "A=B": "x" } })),
    want: [{ field: 'cluster.envs["A=B"]', description: ENV_NAME }],
  },
  {
    name: "rejects an empty environment variable name",
    request: request(cluster({ envs: { "": "x" } })),
    want: [{ field: 'cluster.envs[""]', description: ENV_NAME }],
  },
  {
    name: "rejects MY_POD_IP in envs (the service sets it)",
    request: request(cluster({ envs: { MY_POD_IP: "1.2.3.4" } })),
    want: [{
      field: 'cluster.envs["MY_POD_IP"]',
      description: "is reserved: the service sets it on every container",
    }],
  },
  {
    name: "rejects a cluster without clusterSpec",
    request: request(cluster({ clusterSpec: undefined })),
    want: [{ field: "cluster.clusterSpec", description: "is required" }],
  },
  {
    name: "rejects a clusterSpec without headGroupSpec",
    request: request(
      cluster({ clusterSpec: { ...NO_SPEC_FIELDS, workerGroupSpec: [] } }),
    ),
    want: [{ field: HEAD, description: "is required" }],
  },
  {
    name: "rejects an unknown head service type",
    request: request(withHead({ serviceType: "Ingress" })),
    want: [{
      field: `${HEAD}.serviceType`,
      description: 'must be one of "ClusterIP", "NodePort", "LoadBalancer"',
    }],
  },
  {
    name: "rejects a head compute template name that cannot name a ConfigMap",
    request: request(withHead({ computeTemplate: "Big_One" })),
    want: [{
      field: `${HEAD}.computeTemplate`,
      description: DNS1123_SUBDOMAIN,
    }],
  },
  {
    name: "rejects a head group without image when there is no version",
    request: request(cluster({
      version: "",
      clusterSpec: {
        ...NO_SPEC_FIELDS,
        headGroupSpec: headGroup(),
        workerGroupSpec: [workerGroup({ image: "rayproject/ray:2.9.0" })],
      },
    })),
    want: [{
      field: `${HEAD}.image`,
      description:
        `is required when cluster.version is not set (the newest Ray version Corral knows is ${NEWEST_RAY_VERSION})`,
    }],
  },
  {
    name: "rejects an image with whitespace",
    request: request(withHead({ image: "rayproject/ray 2.9.0" })),
    want: [{
      field: `${HEAD}.image`,
      description: "must not contain whitespace",
    }],
  },
  {
    name: "rejects an engine start param without a name",
    request: request(withHead({ engineStartParams: { "": "x" } })),
    want: [{
      field: `${HEAD}.engineStartParams[""]`,
      description: "must have a name",
    }],
  },
  {
    name: "rejects a worker group without groupName",
    request: request(withWorker({ groupName: "" })),
    want: [{ field: `${WORKER}.groupName`, description: "is required" }],
  },
  {
    name: "rejects a groupName that is not a DNS-1123 label",
    request: request(withWorker({ groupName: "GPU workers" })),
    want: [{ field: `${WORKER}.groupName`, description: DNS1123_LABEL }],
  },
  {
    name: "rejects a groupName over 63 characters",
    request: request(withWorker({ groupName: "g".repeat(64) })),
    want: [{
      field: `${WORKER}.groupName`,
      description: "must be at most 63 characters",
    }],
  },
  {
    name: "rejects two worker groups of the same name",
    request: request(cluster({
      clusterSpec: {
        ...NO_SPEC_FIELDS,
        headGroupSpec: headGroup(),
        workerGroupSpec: [
          workerGroup({ groupName: "cpu" }),
          workerGroup({ groupName: "gpu" }),
          workerGroup({ groupName: "cpu" }),
        ],
      },
    })),
    want: [{
      field: "cluster.clusterSpec.workerGroupSpec[2].groupName",
      description:
        'must be unique: "cpu" is also the name of workerGroupSpec[0]',
    }],
  },
  {
    name: "rejects negative replicas",
    request: request(
      withWorker({
        replicas: -1,
        minReplicas: undefined,
        maxReplicas: undefined,
      }),
    ),
    want: [{
      field: `${WORKER}.replicas`,
      description: "must not be negative",
    }],
  },
  {
    name: "rejects a negative minReplicas",
    request: request(withWorker({ minReplicas: -1 })),
    want: [{
      field: `${WORKER}.minReplicas`,
      description: "must not be negative",
    }],
  },
  {
    name: "rejects a negative maxReplicas",
    request: request(
      withWorker({ replicas: 0, minReplicas: 0, maxReplicas: -2 }),
    ),
    want: [{
      field: `${WORKER}.maxReplicas`,
      description: "must not be negative",
    }],
  },
  {
    name: "rejects minReplicas above replicas",
    request: request(
      withWorker({ replicas: 2, minReplicas: 3, maxReplicas: 5 }),
    ),
    want: [{
      field: `${WORKER}.minReplicas`,
      description: "must not be greater than replicas (2)",
    }],
  },
  {
    name: "rejects maxReplicas below replicas",
    request: request(
      withWorker({ replicas: 3, minReplicas: 1, maxReplicas: 2 }),
    ),
    want: [{
      field: `${WORKER}.maxReplicas`,
      description: "must not be less than replicas (3)",
    }],
  },
  {
    name: "rejects minReplicas above maxReplicas when replicas is invalid too",
    request: request(
      withWorker({ replicas: -1, minReplicas: 5, maxReplicas: 2 }),
    ),
    want: [
      { field: `${WORKER}.replicas`, description: "must not be negative" },
      {
        field: `${WORKER}.maxReplicas`,
        description: "must not be less than minReplicas (5)",
      },
    ],
  },
  {
    name: "rejects a worker group without image when there is no version",
    request: request(cluster({
      version: "",
      clusterSpec: {
        ...NO_SPEC_FIELDS,
        headGroupSpec: headGroup({ image: "rayproject/ray:2.9.0" }),
        workerGroupSpec: [workerGroup()],
      },
    })),
    want: [{
      field: `${WORKER}.image`,
      description:
        `is required when cluster.version is not set (the newest Ray version Corral knows is ${NEWEST_RAY_VERSION})`,
    }],
  },
  {
    name: "rejects a worker compute template name over 63 characters",
    request: request(withWorker({ computeTemplate: "t".repeat(64) })),
    want: [{
      field: `${WORKER}.computeTemplate`,
      description: "must be at most 63 characters",
    }],
  },
  {
    name: "rejects a volume without name",
    request: request(withHead({ volumes: [volume({ name: "" })] })),
    want: [{ field: `${HEAD}.volumes[0].name`, description: "is required" }],
  },
  {
    name: "rejects a volume name that is not a DNS-1123 label",
    request: request(withWorker({ volumes: [volume({ name: "Data_1" })] })),
    want: [{ field: `${WORKER}.volumes[0].name`, description: DNS1123_LABEL }],
  },
  {
    name: "rejects two volumes of the same name in a group",
    request: request(withHead({
      volumes: [volume(), volume({ mountPath: "/other" })],
    })),
    want: [{
      field: `${HEAD}.volumes[1].name`,
      description:
        'must be unique in the group: "data" is also the name of volumes[0]',
    }],
  },
  {
    name: "rejects a volume without mountPath",
    request: request(withHead({ volumes: [volume({ mountPath: "" })] })),
    want: [{
      field: `${HEAD}.volumes[0].mountPath`,
      description: "is required",
    }],
  },
  {
    name: "rejects a relative mountPath",
    request: request(withHead({ volumes: [volume({ mountPath: "data" })] })),
    want: [{
      field: `${HEAD}.volumes[0].mountPath`,
      description: "must be an absolute path",
    }],
  },
  {
    name: "rejects two volumes mounted at the same path in a group",
    request: request(withWorker({
      volumes: [volume(), volume({ name: "other", mountPath: "/data/" })],
    })),
    want: [{
      field: `${WORKER}.volumes[1].mountPath`,
      description:
        'must be unique in the group: "/data/" is also the mount path of volumes[0]',
    }],
  },
  {
    name: "rejects a volume without source",
    request: request(withHead({ volumes: [volume({ source: "" })] })),
    want: [{ field: `${HEAD}.volumes[0].source`, description: "is required" }],
  },
  {
    name: "rejects a PVC source that cannot name a claim",
    request: request(withHead({ volumes: [volume({ source: "My Claim" })] })),
    want: [{
      field: `${HEAD}.volumes[0].source`,
      description: DNS1123_SUBDOMAIN,
    }],
  },
  {
    name: "rejects a relative host path",
    request: request(withHead({
      volumes: [volume({ volumeType: "HOST_PATH", source: "var/log" })],
    })),
    want: [{
      field: `${HEAD}.volumes[0].source`,
      description: "must be an absolute path on the host",
    }],
  },
  {
    name: "rejects a host path with '..'",
    request: request(withHead({
      volumes: [volume({ volumeType: "HOST_PATH", source: "/var/../etc" })],
    })),
    want: [{
      field: `${HEAD}.volumes[0].source`,
      description: "must not contain '..'",
    }],
  },
];

Deno.test("validateCreateCluster() reports each violated rule with its field path", async (t) => {
  for (const c of INVALID_CLUSTER_CASES) {
    await t.step(c.name, () => {
      const { violations } = violationsOf(() =>
        validateCreateCluster(c.request)
      );
      assertViolations(violations, c.want);
    });
  }
});

Deno.test("validateCreateCluster() reports every violation at once, in one message", () => {
  const { violations, message } = violationsOf(() =>
    validateCreateCluster({
      namespace: "team-a",
      cluster: cluster({
        name: "Blue",
        user: "",
        envs: { "1BAD": "x" },
        clusterSpec: {
          ...NO_SPEC_FIELDS,
          headGroupSpec: headGroup({ volumes: [volume({ mountPath: "rel" })] }),
          workerGroupSpec: [
            workerGroup({ groupName: "", replicas: 1, minReplicas: 2 }),
            workerGroup({ groupName: "ok", replicas: 5, maxReplicas: 3 }),
          ],
        },
      }),
    })
  );
  assertViolations(violations, [
    { field: "cluster.name", description: DNS1035_LABEL },
    { field: "cluster.user", description: "is required" },
    { field: 'cluster.envs["1BAD"]', description: ENV_NAME },
    {
      field: `${HEAD}.volumes[0].mountPath`,
      description: "must be an absolute path",
    },
    { field: `${WORKER}.groupName`, description: "is required" },
    {
      field: `${WORKER}.minReplicas`,
      description: "must not be greater than replicas (1)",
    },
    {
      field: "cluster.clusterSpec.workerGroupSpec[1].maxReplicas",
      description: "must not be less than replicas (5)",
    },
  ]);
  assert.equal(
    message,
    `Cannot create cluster "team-a/Blue": cluster.name: ${DNS1035_LABEL}; ` +
      "cluster.user: is required; " +
      `cluster.envs["1BAD"]: ${ENV_NAME}; ` +
      `${HEAD}.volumes[0].mountPath: must be an absolute path; ` +
      `${WORKER}.groupName: is required; ` +
      `${WORKER}.minReplicas: must not be greater than replicas (1); ` +
      "cluster.clusterSpec.workerGroupSpec[1].maxReplicas: must not be less than replicas (5)",
  );
});

Deno.test("validateCreateCluster() names the failed action first", async (t) => {
  const cases = [
    {
      name: "with namespace and name",
      request: request(cluster({ user: "" })),
      want: 'Cannot create cluster "team-a/blue": cluster.user: is required',
    },
    {
      name: "without a name",
      request: request(cluster({ name: "" })),
      want:
        'Cannot create cluster in namespace "team-a": cluster.name: is required',
    },
    {
      name: "without a namespace",
      request: request(cluster(), ""),
      want: 'Cannot create cluster "blue": namespace: is required',
    },
    {
      name: "without a cluster",
      request: request(undefined),
      want: 'Cannot create cluster in namespace "team-a": cluster: is required',
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const { message } = violationsOf(() => validateCreateCluster(c.request));
      assert.equal(message, c.want, `got ${message}, want ${c.want}`);
    });
  }
});

const VALID_CLUSTER_CASES: { name: string; request: ClusterCase["request"] }[] =
  [
    { name: "accepts a head-only cluster", request: request(withHead({})) },
    {
      name: "accepts a cluster with a worker group",
      request: request(cluster()),
    },
    {
      name: "accepts minReplicas 0",
      request: request(
        withWorker({ replicas: 0, minReplicas: 0, maxReplicas: 5 }),
      ),
    },
    {
      name: "accepts replicas, minReplicas and maxReplicas all 0",
      request: request(
        withWorker({ replicas: 0, minReplicas: 0, maxReplicas: 0 }),
      ),
    },
    {
      name: "accepts omitted minReplicas and maxReplicas",
      request: request(
        withWorker({ minReplicas: undefined, maxReplicas: undefined }),
      ),
    },
    {
      name: "accepts an image on every group instead of a version",
      request: request(cluster({
        version: "",
        clusterSpec: {
          ...NO_SPEC_FIELDS,
          headGroupSpec: headGroup({ image: "rayproject/ray:2.9.0" }),
          workerGroupSpec: [
            workerGroup({ image: "my.registry:5000/ray@sha256:abc" }),
          ],
        },
      })),
    },
    {
      name: "accepts a body namespace equal to the request's",
      request: request(cluster({ namespace: "team-a" })),
    },
    {
      name: "accepts a cluster name of 53 characters",
      request: request(cluster({ name: `a${"-".repeat(51)}z` })),
    },
    {
      name: "accepts every head service type",
      request: request(withHead({ serviceType: "LoadBalancer" })),
    },
    {
      name: "accepts a group without compute template",
      request: request(withHead({ computeTemplate: "" })),
    },
    {
      name: "accepts PVC and host path volumes on head and workers",
      request: request(cluster({
        clusterSpec: {
          ...NO_SPEC_FIELDS,
          headGroupSpec: headGroup({
            volumes: [
              volume({ readOnly: true }),
              volume({
                name: "logs",
                mountPath: "/logs",
                volumeType: "HOST_PATH",
                source: "/var/log/ray",
                mountPropagationMode: "HOSTTOCONTAINER",
              }),
            ],
          }),
          workerGroupSpec: [workerGroup({
            volumes: [volume({
              name: "conf",
              mountPath: "/etc/app.conf",
              volumeType: "HOST_PATH",
              source: "/etc/app.conf",
              hostPathType: "FILE",
            })],
          })],
        },
      })),
    },
    {
      name: "accepts the same volume in head and worker groups",
      request: request(cluster({
        clusterSpec: {
          ...NO_SPEC_FIELDS,
          headGroupSpec: headGroup({ volumes: [volume()] }),
          workerGroupSpec: [workerGroup({ volumes: [volume()] })],
        },
      })),
    },
    {
      name: "accepts environment variable names with '.', '-' and '_'",
      request: request(
        cluster({
          envs: { "my.var-name_1": "x", _HIDDEN: "", AWS_REGION: "eu" },
        }),
      ),
    },
    {
      name: "accepts the user and version as label values",
      request: request(
        cluster({ user: "alice.smith_2", version: "2.9.0-rc1" }),
      ),
    },
  ];

Deno.test("validateCreateCluster() accepts valid clusters", async (t) => {
  for (const c of VALID_CLUSTER_CASES) {
    await t.step(c.name, () => {
      assertViolations(
        violationsOf(() => validateCreateCluster(c.request)).violations,
        [],
      );
    });
  }
});

// ---------------------------------------------------------------------------
// Keys and namespaces

const KEY_CASES: {
  name: string;
  key: { namespace: string; name: string };
  want: FieldViolation[];
}[] = [
  {
    name: "accepts a namespace and a name",
    key: { namespace: "team-a", name: "blue" },
    want: [],
  },
  {
    name:
      "accepts any name Kubernetes could have stored (a DNS-1123 subdomain)",
    key: { namespace: "team-a", name: `0.${"a".repeat(60)}` },
    want: [],
  },
  {
    name: "rejects a missing name",
    key: { namespace: "team-a", name: "" },
    want: [{ field: "name", description: "is required" }],
  },
  {
    name: "rejects a name that could change the Kubernetes path",
    key: { namespace: "team-a", name: "../blue" },
    want: [{ field: "name", description: DNS1123_SUBDOMAIN }],
  },
  {
    name: "rejects a name over 253 characters",
    key: { namespace: "team-a", name: "a".repeat(254) },
    want: [{ field: "name", description: "must be at most 253 characters" }],
  },
  {
    name: "rejects a missing namespace and name together",
    key: { namespace: "", name: "" },
    want: [
      { field: "namespace", description: "is required" },
      { field: "name", description: "is required" },
    ],
  },
  {
    name: "rejects an invalid namespace",
    key: { namespace: "team/a", name: "blue" },
    want: [{ field: "namespace", description: DNS1123_LABEL }],
  },
];

Deno.test("validateClusterKey() checks the namespace and name of get and delete", async (t) => {
  for (const c of KEY_CASES) {
    await t.step(c.name, () => {
      const action = clusterAction("get", c.key.namespace, c.key.name);
      const { violations, message } = violationsOf(() =>
        validateClusterKey(c.key, action)
      );
      assertViolations(violations, c.want);
      if (c.want.length > 0) {
        assert.ok(
          message.startsWith(`${action}: `),
          `got ${message}, want it to start with ${action}`,
        );
      }
    });
  }
});

Deno.test("validateComputeTemplateKey() checks the namespace and name of get and delete", async (t) => {
  for (const c of KEY_CASES) {
    await t.step(c.name, () => {
      const action = computeTemplateAction(
        "delete",
        c.key.namespace,
        c.key.name,
      );
      assertViolations(
        violationsOf(() => validateComputeTemplateKey(c.key, action))
          .violations,
        c.want,
      );
    });
  }
});

Deno.test("validateNamespace() checks the namespace of a list", async (t) => {
  const cases: { name: string; namespace: string; want: FieldViolation[] }[] = [
    { name: "accepts a DNS-1123 label", namespace: "team-a", want: [] },
    {
      name: "rejects an empty namespace",
      namespace: "",
      want: [{ field: "namespace", description: "is required" }],
    },
    {
      name: "rejects upper case",
      namespace: "Team-A",
      want: [{ field: "namespace", description: DNS1123_LABEL }],
    },
    {
      name: "rejects dots",
      namespace: "team.a",
      want: [{ field: "namespace", description: DNS1123_LABEL }],
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const { violations, message } = violationsOf(() =>
        validateNamespace(c.namespace, 'Cannot list clusters in namespace "x"')
      );
      assertViolations(violations, c.want);
      if (c.want.length > 0) {
        assert.ok(
          message.startsWith('Cannot list clusters in namespace "x": '),
        );
      }
    });
  }
});

Deno.test("clusterAction() and computeTemplateAction() name what failed", async (t) => {
  const cases = [
    [
      clusterAction("delete", "team-a", "blue"),
      'Cannot delete cluster "team-a/blue"',
    ],
    [clusterAction("get", "", "blue"), 'Cannot get cluster "blue"'],
    [
      clusterAction("create", "team-a"),
      'Cannot create cluster in namespace "team-a"',
    ],
    [clusterAction("create", ""), "Cannot create cluster"],
    [
      computeTemplateAction("create", "team-a", "big"),
      'Cannot create compute template "team-a/big"',
    ],
  ];
  for (const [got, want] of cases) {
    await t.step(
      want,
      () => assert.equal(got, want, `got ${got}, want ${want}`),
    );
  }
});

// ---------------------------------------------------------------------------
// validateCreateComputeTemplate

const TEMPLATE_CASES: {
  name: string;
  request: { computeTemplate?: ComputeTemplate; namespace: string };
  want: FieldViolation[];
}[] = [
  {
    name: "accepts a CPU template",
    request: { computeTemplate: template(), namespace: "team-a" },
    want: [],
  },
  {
    name: "accepts a body namespace equal to the request's",
    request: {
      computeTemplate: template({ namespace: "team-a" }),
      namespace: "team-a",
    },
    want: [],
  },
  {
    name: "accepts GPUs without an accelerator (nvidia.com/gpu)",
    request: { computeTemplate: template({ gpu: 2 }), namespace: "team-a" },
    want: [],
  },
  {
    name: "accepts GPUs with an extended resource name such as amd.com/gpu",
    request: {
      computeTemplate: template({ gpu: 1, gpuAccelerator: "amd.com/gpu" }),
      namespace: "team-a",
    },
    want: [],
  },
  {
    name: "accepts a MIG profile resource name",
    request: {
      computeTemplate: template({
        gpu: 1,
        gpuAccelerator: "nvidia.com/mig-1g.5gb",
        tolerations: [],
      }),
      namespace: "team-a",
    },
    want: [],
  },
  {
    name: "accepts a dotted template name (a DNS-1123 subdomain)",
    request: {
      computeTemplate: template({ name: "gpu.a100" }),
      namespace: "team-a",
    },
    want: [],
  },
  {
    name: "rejects a missing namespace",
    request: { computeTemplate: template(), namespace: "" },
    want: [{ field: "namespace", description: "is required" }],
  },
  {
    name: "rejects a missing compute template",
    request: { namespace: "team-a" },
    want: [{ field: "computeTemplate", description: "is required" }],
  },
  {
    name: "rejects a template without name",
    request: { computeTemplate: template({ name: "" }), namespace: "team-a" },
    want: [{ field: "computeTemplate.name", description: "is required" }],
  },
  {
    name: "rejects a template name that cannot name a ConfigMap",
    request: {
      computeTemplate: template({ name: "Big One" }),
      namespace: "team-a",
    },
    want: [{ field: "computeTemplate.name", description: DNS1123_SUBDOMAIN }],
  },
  {
    name:
      "rejects a template name over 63 characters (it becomes a label value)",
    request: {
      computeTemplate: template({ name: "t".repeat(64) }),
      namespace: "team-a",
    },
    want: [{
      field: "computeTemplate.name",
      description: "must be at most 63 characters",
    }],
  },
  {
    name: "rejects a body namespace that differs from the request's",
    request: {
      computeTemplate: template({ namespace: "team-b" }),
      namespace: "team-a",
    },
    want: [{
      field: "computeTemplate.namespace",
      description: 'must be empty or equal the request\'s namespace "team-a"',
    }],
  },
  {
    name: "rejects cpu 0",
    request: { computeTemplate: template({ cpu: 0 }), namespace: "team-a" },
    want: [{
      field: "computeTemplate.cpu",
      description: "must be greater than 0",
    }],
  },
  {
    name: "rejects memory 0",
    request: { computeTemplate: template({ memory: 0 }), namespace: "team-a" },
    want: [{
      field: "computeTemplate.memory",
      description: "must be greater than 0",
    }],
  },
  {
    name: "rejects a negative gpu",
    request: { computeTemplate: template({ gpu: -1 }), namespace: "team-a" },
    want: [{
      field: "computeTemplate.gpu",
      description: "must not be negative",
    }],
  },
  {
    name: "rejects an accelerator without a domain prefix",
    request: {
      computeTemplate: template({ gpu: 1, gpuAccelerator: "gpu" }),
      namespace: "team-a",
    },
    want: [{
      field: "computeTemplate.gpuAccelerator",
      description: EXTENDED_RESOURCE,
    }],
  },
  {
    name: "rejects an accelerator in the kubernetes.io namespace",
    request: {
      computeTemplate: template({
        gpu: 1,
        gpuAccelerator: "kubernetes.io/gpu",
        tolerations: [],
      }),
      namespace: "team-a",
    },
    want: [{
      field: "computeTemplate.gpuAccelerator",
      description: EXTENDED_RESOURCE,
    }],
  },
  {
    name: "rejects an accelerator without a name after the slash",
    request: {
      computeTemplate: template({ gpu: 1, gpuAccelerator: "nvidia.com/" }),
      namespace: "team-a",
    },
    want: [{
      field: "computeTemplate.gpuAccelerator",
      description: EXTENDED_RESOURCE,
    }],
  },
  {
    name: "reports several violations at once",
    request: {
      computeTemplate: template({
        name: "",
        namespace: "team-b",
        cpu: 0,
        memory: 0,
        gpuAccelerator: "NVIDIA GPU",
        tolerations: [],
      }),
      namespace: "team-a",
    },
    want: [
      { field: "computeTemplate.name", description: "is required" },
      {
        field: "computeTemplate.namespace",
        description: 'must be empty or equal the request\'s namespace "team-a"',
      },
      { field: "computeTemplate.cpu", description: "must be greater than 0" },
      {
        field: "computeTemplate.memory",
        description: "must be greater than 0",
      },
      {
        field: "computeTemplate.gpuAccelerator",
        description: EXTENDED_RESOURCE,
      },
    ],
  },
];

Deno.test("validateCreateComputeTemplate() checks every rule", async (t) => {
  for (const c of TEMPLATE_CASES) {
    await t.step(c.name, () => {
      assertViolations(
        violationsOf(() => validateCreateComputeTemplate(c.request)).violations,
        c.want,
      );
    });
  }
});

Deno.test("validateCreateComputeTemplate() names the template in its message", () => {
  const { message } = violationsOf(() =>
    validateCreateComputeTemplate({
      computeTemplate: template({ cpu: 0 }),
      namespace: "team-a",
    })
  );
  const want =
    'Cannot create compute template "team-a/big": computeTemplate.cpu: must be greater than 0';
  assert.equal(message, want, `got ${message}, want ${want}`);
});

// ---------------------------------------------------------------------------
// missingTemplatesError

Deno.test("missingTemplatesError() is FAILED_PRECONDITION naming the templates", async (t) => {
  const cases = [
    {
      name: "one template",
      missing: ["big"],
      want:
        'Cannot create cluster "team-a/blue": compute template "big" not found in namespace "team-a"',
    },
    {
      name: "several templates",
      missing: ["big", "gpu"],
      want:
        'Cannot create cluster "team-a/blue": compute templates "big", "gpu" not found in namespace "team-a"',
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const error = missingTemplatesError(cluster(), "team-a", c.missing);
      assert.ok(error instanceof ServiceError);
      assert.equal(
        error.code,
        Code.FAILED_PRECONDITION,
        `got code ${error.code}, want ${Code.FAILED_PRECONDITION}`,
      );
      assert.equal(
        error.message,
        c.want,
        `got ${error.message}, want ${c.want}`,
      );
    });
  }
});

// ---------------------------------------------------------------------------
// Limits

/** A map of `n` entries KEY_0..KEY_n-1 (valid env names and start params). */
function entries(n: number, key = (i: number) => `KEY_${i}`) {
  return Object.fromEntries(
    Array.from({ length: n }, (_, i) => [key(i), "x"]),
  );
}

const LIMIT_CASES: ClusterCase[] = [
  {
    name: "refuses 2,147,483,647 replicas (--max-replicas)",
    request: request(withWorker({
      replicas: 2_147_483_647,
      minReplicas: 1_001,
      maxReplicas: 2_147_483_647,
    })),
    want: [
      {
        field: `${WORKER}.replicas`,
        description: "must be at most 1000 (--max-replicas)",
      },
      {
        field: `${WORKER}.minReplicas`,
        description: "must be at most 1000 (--max-replicas)",
      },
      {
        field: `${WORKER}.maxReplicas`,
        description: "must be at most 1000 (--max-replicas)",
      },
    ],
  },
  {
    name: "refuses a 21st worker group (--max-worker-groups)",
    request: request(cluster({
      clusterSpec: {
        ...NO_SPEC_FIELDS,
        headGroupSpec: headGroup(),
        workerGroupSpec: Array.from(
          { length: 21 },
          (_, i) => workerGroup({ groupName: `g${i}` }),
        ),
      },
    })),
    want: [{
      field: "cluster.clusterSpec.workerGroupSpec",
      description:
        "must have at most 20 worker groups, got 21 (--max-worker-groups)",
    }],
  },
  {
    name: "refuses 101 envs and 101 start parameters (--max-map-entries)",
    request: request(cluster({
      envs: entries(101),
      clusterSpec: {
        ...NO_SPEC_FIELDS,
        headGroupSpec: headGroup({
          engineStartParams: entries(101, (i) => `param-${i}`),
        }),
        workerGroupSpec: [],
      },
    })),
    want: [
      {
        field: "cluster.envs",
        description:
          "must have at most 100 entries, got 101 (--max-map-entries)",
      },
      {
        field: `${HEAD}.engineStartParams`,
        description:
          "must have at most 100 entries, got 101 (--max-map-entries)",
      },
    ],
  },
  {
    name: "refuses env values over 4 KiB and names over 256 characters",
    request: request(cluster({
      envs: { BIG: "x".repeat(4097), ["N".repeat(257)]: "x" },
    })),
    want: [
      {
        field: 'cluster.envs["BIG"]',
        description:
          "must have a value of at most 4096 characters (it lands in every container's environment)",
      },
      {
        field: `cluster.envs[${JSON.stringify("N".repeat(257))}]`,
        description: "must have a name of at most 256 characters",
      },
    ],
  },
  {
    name: "refuses start parameter values over 1 KiB and names over 63",
    request: request(withHead({
      engineStartParams: { big: "x".repeat(1025), ["n".repeat(64)]: "1" },
    })),
    want: [
      {
        field: `${HEAD}.engineStartParams["big"]`,
        description:
          "must have a value of at most 1024 characters (it lands on the ray start command line)",
      },
      {
        field: `${HEAD}.engineStartParams[${JSON.stringify("n".repeat(64))}]`,
        description: "must have a name of at most 63 characters",
      },
    ],
  },
];

Deno.test("validateCreateCluster() refuses what exceeds the default limits", async (t) => {
  for (const c of LIMIT_CASES) {
    await t.step(c.name, () => {
      assertViolations(
        violationsOf(() => validateCreateCluster(c.request)).violations,
        c.want,
      );
    });
  }
});

Deno.test("validateCreateCluster() accepts what the limits allow, and raised limits", () => {
  const atLimits = request(cluster({
    envs: entries(100),
    clusterSpec: {
      ...NO_SPEC_FIELDS,
      headGroupSpec: headGroup({
        engineStartParams: entries(100, (i) => `param-${i}`),
      }),
      workerGroupSpec: Array.from({ length: 20 }, (_, i) =>
        workerGroup({
          groupName: `g${i}`,
          replicas: 1000,
          minReplicas: 1000,
          maxReplicas: 1000,
        })),
    },
  }));
  assertViolations(
    violationsOf(() => validateCreateCluster(atLimits)).violations,
    [],
  );
  const raised = { ...DEFAULT_LIMITS, maxReplicas: 5000 };
  assertViolations(
    violationsOf(() =>
      validateCreateCluster(
        request(withWorker({ replicas: 5000, maxReplicas: 5000 })),
        raised,
      )
    ).violations,
    [],
  );
  assertViolations(
    violationsOf(() =>
      validateCreateCluster(
        request(withWorker({ replicas: 5001, maxReplicas: 5001 })),
        raised,
      )
    ).violations,
    [
      {
        field: `${WORKER}.replicas`,
        description: "must be at most 5000 (--max-replicas)",
      },
      {
        field: `${WORKER}.maxReplicas`,
        description: "must be at most 5000 (--max-replicas)",
      },
    ],
  );
});

Deno.test("validateCreateComputeTemplate() refuses what exceeds the limits", () => {
  const request = {
    computeTemplate: template({
      cpu: 4_294_967_295,
      memory: 16_385,
      gpu: 65,
    }),
    namespace: "team-a",
  };
  assertViolations(
    violationsOf(() => validateCreateComputeTemplate(request)).violations,
    [
      {
        field: "computeTemplate.cpu",
        description: "must be at most 1024 (--max-template-cpu)",
      },
      {
        field: "computeTemplate.memory",
        description: "must be at most 16384 (--max-template-memory)",
      },
      {
        field: "computeTemplate.gpu",
        description: "must be at most 64 (--max-template-gpu)",
      },
    ],
  );
  const atLimits = template({ cpu: 1024, memory: 16_384, gpu: 64 });
  assertViolations(
    violationsOf(() =>
      validateCreateComputeTemplate({
        computeTemplate: atLimits,
        namespace: "team-a",
      })
    ).violations,
    [],
  );
  assertViolations(
    violationsOf(() =>
      validateCreateComputeTemplate(
        { computeTemplate: template({ gpu: 1 }), namespace: "team-a" },
        { ...DEFAULT_LIMITS, maxTemplateGpu: 0 },
      )
    ).violations,
    [{
      field: "computeTemplate.gpu",
      description: "must be at most 0 (--max-template-gpu)",
    }],
  );
});

// ---------------------------------------------------------------------------
// Start parameters: the operator puts them unquoted on a bash command line

Deno.test("validateCreateCluster() refuses start parameter names that are not flag names", async (t) => {
  for (const key of ["Num-CPUs", "num_cpus", "-x", "a b", "x;y", "--block"]) {
    await t.step(JSON.stringify(key), () => {
      assertViolations(
        violationsOf(() =>
          validateCreateCluster(
            request(withHead({ engineStartParams: { [key]: "1" } })),
          )
        ).violations,
        [{
          field: `${HEAD}.engineStartParams[${JSON.stringify(key)}]`,
          description:
            "must have a ray start flag name: lower case alphanumeric characters or '-', starting with an alphanumeric character",
        }],
      );
    });
  }
});

Deno.test("shellWordProblem() refuses what bash would run, expand or split", async (t) => {
  const cases: [string, string][] = [
    ["1 --address=evil", '" " is allowed only in quotes'],
    ["1;reboot", '";" is allowed only in quotes'],
    ["1|nc", '"|" is allowed only in quotes'],
    ["1&", '"&" is allowed only in quotes'],
    ["x>/etc/passwd", '">" is allowed only in quotes'],
    ["<in", '"<" is allowed only in quotes'],
    ["(x)", '"(" is allowed only in quotes'],
    ["$(id)", '"$" is allowed only in $MY_POD_IP'],
    ["$HOME", '"$" is allowed only in $MY_POD_IP'],
    ["$MY_POD_IPX", '"$" is allowed only in $MY_POD_IP'],
    ['"$(id)"', '"$" is allowed only in $MY_POD_IP'],
    ["`id`", "backquotes are not allowed"],
    ['"`id`"', "backquotes are not allowed"],
    ["a\nb", "control characters such as newline or tab are not allowed"],
    ["a\tb", "control characters such as newline or tab are not allowed"],
    ['"open', 'its " quote is not closed'],
    ["'open", "its ' quote is not closed"],
    ["a\\;b", '"\\\\" is allowed only in quotes'],
    ["*", '"*" is allowed only in quotes'],
    ["~/x", '"~" is allowed only in quotes'],
    ["{a,b}", '"{" is allowed only in quotes'],
  ];
  for (const [value, want] of cases) {
    await t.step(JSON.stringify(value), () => {
      assert.equal(shellWordProblem(value), want);
    });
  }
});

Deno.test("shellWordProblem() accepts plain values, quoted text and $MY_POD_IP", async (t) => {
  for (
    const value of [
      "",
      "0.0.0.0",
      "true",
      "8265",
      "10.0.0.1:6379",
      "/tmp/ray",
      "--x=y",
      "$MY_POD_IP",
      "${MY_POD_IP}",
      '"$MY_POD_IP"',
      '"{\\"GPU\\": 1, \\"custom\\": 2}"',
      "'{\"GPU\": 1}'",
      "'$(not run)'",
      '"a; b | c & d > e"',
    ]
  ) {
    await t.step(JSON.stringify(value), () => {
      assert.equal(shellWordProblem(value), undefined);
    });
  }
});

Deno.test("validateCreateCluster() names the start parameter whose value the shell would run", () => {
  const { violations, message } = violationsOf(() =>
    validateCreateCluster(
      request(withHead({ engineStartParams: { block: "true; curl x|sh" } })),
    )
  );
  assertViolations(violations, [{
    field: `${HEAD}.engineStartParams["block"]`,
    description:
      'must have a value the shell reads as plain text: ";" is allowed only in quotes (the operator puts it unquoted on a bash command line)',
  }]);
  assert.match(message, /^Cannot create cluster "team-a\/[a-z-]+": cluster\./);
});

Deno.test("templateInUseError() is FAILED_PRECONDITION naming up to five clusters", async (t) => {
  const cases: [string[], string][] = [
    [["a"], 'cluster "a" uses it'],
    [["a", "b"], 'clusters "a" and "b" use it'],
    [["a", "b", "c", "d", "e"], 'clusters "a", "b", "c", "d" and "e" use it'],
    [
      ["a", "b", "c", "d", "e", "f", "g", "h"],
      'clusters "a", "b", "c", "d", "e" and 3 more use it',
    ],
  ];
  for (const [clusters, want] of cases) {
    await t.step(`${clusters.length} clusters`, () => {
      const error = templateInUseError("team-a", "small", clusters);
      assert.equal(error.code, Code.FAILED_PRECONDITION);
      assert.equal(
        error.message,
        `Cannot delete compute template "team-a/small": ${want}`,
      );
    });
  }
});
