/**
 * `corral services ...`: create, list, get, update, wait for and delete
 * services (KubeRay RayServices: Ray Serve applications on a cluster of
 * their own) through the service routes of the HTTP API
 * (`/apis/v1alpha2/.../services`). A service's cluster comes from the same
 * flags as a job's (cluster_flags.ts), or the whole service from a file.
 */
import { parse } from "yaml";
import {
  type Flags,
  onePositional,
  type ParsedArgs,
  parseDuration,
  stringFlag,
  wholeNumber,
} from "./args.ts";
import {
  clusterSpecOf,
  NEW_CLUSTER_FLAGS,
  wantsNewCluster,
  WORKER_GROUP,
} from "./cluster_flags.ts";
import { type CommandGroup, withClient } from "./command.ts";
import { CliError, EXIT_OK, EXIT_USAGE, UsageError } from "./errors.ts";
import { namespaceOf, readObjectFile } from "./files.ts";
import { defaultUser } from "./jobs.ts";
import { age } from "./output.ts";
import {
  ALL_NAMESPACES,
  getObject,
  type Kind,
  listObjects,
  OUTPUT,
} from "./resources.ts";
import {
  applicationsCell,
  serviceHealth,
  servicePath,
  waitForService,
} from "./service_wait.ts";
import type { Service, WorkerGroup } from "./types.ts";

const DEFAULT_TIMEOUT = "15m";

const WAIT: Flags = {
  wait: {
    type: "boolean",
    help: "follow the service until it is Running (exit 0)",
  },
  timeout: {
    type: "string",
    value: "DURATION",
    help: `how long --wait waits (default ${DEFAULT_TIMEOUT}); then exit 2`,
  },
};

const SERVE_CONFIG: Flags = {
  "serve-config": {
    type: "string",
    value: "FILE",
    help: "Serve's config (v2, with its applications), a YAML file",
  },
};

/** Services as the CLI lists and gets them. */
export const SERVICE_KIND: Kind<Service> = {
  noun: "service",
  plural: "services",
  listField: "services",
  allPath: servicePath(),
  path: servicePath,
  header: [
    "NAME",
    "STATUS",
    "ACTIVE-CLUSTER",
    "PENDING-CLUSTER",
    "APPLICATIONS",
    "AGE",
  ],
  cells: (service) => [
    service.name,
    serviceHealth(service),
    service.rayServiceStatus?.rayClusterName || "<none>",
    service.rayServiceStatus?.pendingRayClusterName || "<none>",
    applicationsCell(service),
    service.createdAt ? age(service.createdAt, Date.now()) : "<none>",
  ],
  namespaceOf: (service) => service.namespace,
};

function timeoutOf(values: ParsedArgs["values"]): number {
  return parseDuration(
    stringFlag(values, "timeout") ?? DEFAULT_TIMEOUT,
    "--timeout",
  );
}

/**
 * The text of the Serve config file `path` (`-` for standard input),
 * checked to be a YAML mapping here so that a file that is not is named
 * by the command line rather than sent; Corral checks the rest.
 */
async function readServeConfig(path: string): Promise<string> {
  const source = path === "-" ? "standard input" : path;
  let text: string;
  try {
    text = path === "-"
      ? await new Response(Deno.stdin.readable).text()
      : await Deno.readTextFile(path);
  } catch (error) {
    throw new CliError(
      `cannot read ${source}: ${(error as Error).message}`,
      EXIT_USAGE,
    );
  }
  let config: unknown;
  try {
    config = parse(text);
  } catch (error) {
    throw new CliError(
      `${source} is not YAML: ${(error as Error).message}`,
      EXIT_USAGE,
    );
  }
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    throw new CliError(
      `${source} does not hold a Serve config: expected a mapping with its applications`,
      EXIT_USAGE,
    );
  }
  return text;
}

/** The service `-f FILE` holds, named NAME when a name is given too. */
async function serviceFromFile(
  file: string,
  values: ParsedArgs["values"],
  name: string | undefined,
): Promise<Record<string, unknown>> {
  if (values["serve-config"] !== undefined || wantsNewCluster(values)) {
    throw new UsageError(
      "-f FILE holds the whole service: it takes no --serve-config, --template, --workers, --image or --version",
    );
  }
  const service = await readObjectFile(file, "service");
  if (name !== undefined && service.name && service.name !== name) {
    throw new UsageError(
      `the file's name ${JSON.stringify(service.name)} is not ${
        JSON.stringify(name)
      }`,
    );
  }
  return name === undefined ? service : { ...service, name };
}

/** The service the flags describe, in the API's JSON. */
async function serviceFromFlags(
  values: ParsedArgs["values"],
  name: string | undefined,
): Promise<Record<string, unknown>> {
  const configFile = stringFlag(values, "serve-config");
  if (name === undefined || configFile === undefined) {
    throw new UsageError(
      "say what the service is: NAME --serve-config FILE --template T, or -f FILE",
      [`  usage: ${CREATE_USAGE}`],
    );
  }
  if (!wantsNewCluster(values)) {
    throw new UsageError(
      "say what the service's cluster is: --template T [--workers N] [--image I | --version V]",
      [`  usage: ${CREATE_USAGE}`],
    );
  }
  const version = stringFlag(values, "version");
  return {
    name,
    serveConfigV2: await readServeConfig(configFile),
    clusterSpec: clusterSpecOf(values),
    ...version ? { version } : {},
  };
}

async function create({ values, positionals }: ParsedArgs): Promise<number> {
  if (positionals.length > 1) {
    throw new UsageError(
      `unexpected argument ${JSON.stringify(positionals[1])}`,
      [`  usage: ${CREATE_USAGE}`],
    );
  }
  const name = positionals[0];
  const file = stringFlag(values, "filename");
  const timeoutMs = timeoutOf(values);
  const service = file !== undefined
    ? await serviceFromFile(file, values, name)
    : await serviceFromFlags(values, name);
  return await withClient(values, async (client, connection) => {
    const namespace = namespaceOf(service, values, connection.namespace);
    const created = await client.call<Service>("POST", servicePath(namespace), {
      ...service,
      user: service.user || stringFlag(values, "user") ||
        defaultUser(connection.token),
      namespace,
    });
    const key = `${created.namespace}/${created.name}`;
    if (!values.wait) {
      console.log(`service ${key} created`);
      return EXIT_OK;
    }
    console.log(`service ${key} created, waiting for it to be Running`);
    return await waitForService(client, {
      namespace: created.namespace,
      name: created.name,
      timeoutMs,
    });
  });
}
const CREATE_USAGE =
  "services create NAME --serve-config FILE --template T [--workers N] [--image I | --version V] [--wait] | services create [NAME] -f FILE";

/**
 * The worker group `--workers` scales: the one named "workers" (as the
 * flags make it), else the only one.
 */
function scaledGroup(service: Service): WorkerGroup {
  const groups = service.clusterSpec?.workerGroupSpec ?? [];
  const group = groups.find((g) => g.groupName === WORKER_GROUP) ??
    (groups.length === 1 ? groups[0] : undefined);
  if (!group) {
    throw new UsageError(
      `service ${service.namespace}/${service.name} has ${
        groups.length === 0 ? "no worker group" : "several worker groups"
      }: change its workers with -f FILE of \`services get -o yaml\` and the API instead`,
    );
  }
  return group;
}

/** `service` with `--serve-config` and `--workers` applied. */
async function changed(
  service: Service,
  values: ParsedArgs["values"],
): Promise<Service> {
  const configFile = stringFlag(values, "serve-config");
  const workers = wholeNumber(values, "workers");
  if (configFile === undefined && workers === undefined) {
    throw new UsageError(
      "say what changes: --serve-config FILE or --workers N",
      [
        `  usage: ${UPDATE_USAGE}`,
      ],
    );
  }
  const next: Service = structuredClone(service);
  if (configFile !== undefined) {
    next.serveConfigV2 = await readServeConfig(configFile);
  }
  if (workers !== undefined) {
    const group = scaledGroup(next);
    group.replicas = workers;
    // The bounds follow when the count leaves them, as a scale does.
    const min = typeof group.minReplicas === "number" ? group.minReplicas : 0;
    const max = typeof group.maxReplicas === "number" ? group.maxReplicas : 0;
    group.minReplicas = Math.min(min, workers);
    group.maxReplicas = Math.max(max, workers);
  }
  return next;
}

async function update({ values, positionals }: ParsedArgs): Promise<number> {
  const name = onePositional(positionals, "a service name", UPDATE_USAGE);
  return await withClient(values, async (client, { namespace }) => {
    const path = servicePath(namespace, name);
    const service = await client.call<Service>("GET", path);
    const next = await changed(service, values);
    // An update is a PUT of the whole service; the status it carries is
    // output only, and left out.
    const { rayServiceStatus: _, ...body } = next;
    await client.call<Service>("PUT", path, body);
    console.log(`service ${namespace}/${name} updated`);
    return EXIT_OK;
  });
}
const UPDATE_USAGE =
  "services update NAME [-n NS] (--serve-config FILE | --workers N)";

async function wait({ values, positionals }: ParsedArgs): Promise<number> {
  const name = onePositional(positionals, "a service name", WAIT_USAGE);
  const timeoutMs = timeoutOf(values);
  return await withClient(values, async (client, { namespace }) => {
    // Read once first, so a service that is not there is named as the API says.
    await client.call<Service>("GET", servicePath(namespace, name));
    return await waitForService(client, { namespace, name, timeoutMs });
  });
}
const WAIT_USAGE = `services wait NAME [-n NS] [--timeout ${DEFAULT_TIMEOUT}]`;

async function remove({ values, positionals }: ParsedArgs): Promise<number> {
  const name = onePositional(positionals, "a service name", DELETE_USAGE);
  return await withClient(values, async (client, { namespace }) => {
    await client.call("DELETE", servicePath(namespace, name));
    console.log(`service ${namespace}/${name} deleted`);
    return EXIT_OK;
  });
}
const DELETE_USAGE = "services delete NAME [-n NS]";

const LIST_USAGE = "services list [-n NS | -A] [-o table|json|yaml]";
const GET_USAGE = "services get NAME [-n NS] [-o table|json|yaml]";

const CREATE_FLAGS: Flags = {
  ...SERVE_CONFIG,
  ...NEW_CLUSTER_FLAGS,
  filename: {
    type: "string",
    short: "f",
    value: "FILE",
    help: "the whole service, as the HTTP API takes it (- for standard input)",
  },
  user: {
    type: "string",
    value: "NAME",
    help:
      "the service's owner (default: who the token says you are; without a token, $USER)",
  },
  ...WAIT,
};

export const SERVICES: CommandGroup = {
  name: "services",
  summary: "create, list, update, wait for and delete Ray Serve services",
  commands: [
    {
      name: "create",
      summary: "create a service on a new cluster of its own",
      usage: CREATE_USAGE,
      flags: CREATE_FLAGS,
      examples: [
        "corral services create fruit --serve-config serve.yaml --template small --workers 2 --version 2.9.0 --wait",
        "corral services create -f fruit.yaml -n team-a",
      ],
      run: create,
    },
    {
      name: "list",
      summary: "list the services of a namespace, or of all (-A)",
      usage: LIST_USAGE,
      flags: { ...ALL_NAMESPACES, ...OUTPUT },
      examples: ["corral services list -n team-a", "corral services list -A"],
      run: listObjects(SERVICE_KIND, LIST_USAGE),
    },
    {
      name: "get",
      summary: "show one service",
      usage: GET_USAGE,
      flags: OUTPUT,
      examples: ["corral services get fruit -n team-a -o yaml"],
      run: getObject(SERVICE_KIND, GET_USAGE),
    },
    {
      name: "update",
      summary: "change a service's Serve config or its number of workers",
      usage: UPDATE_USAGE,
      flags: {
        ...SERVE_CONFIG,
        workers: { type: "string", value: "N", help: "workers of its cluster" },
      },
      examples: [
        "corral services update fruit --serve-config serve.yaml",
        "corral services update fruit --workers 3",
      ],
      run: update,
    },
    {
      name: "wait",
      summary: "wait for a service to be Running (exit 0; 2 on --timeout)",
      usage: WAIT_USAGE,
      flags: { timeout: WAIT.timeout },
      examples: ["corral services wait fruit --timeout 10m && curl ..."],
      run: wait,
    },
    {
      name: "delete",
      summary: "delete a service and its clusters",
      usage: DELETE_USAGE,
      flags: {},
      examples: ["corral services delete fruit -n team-a"],
      run: remove,
    },
  ],
};
