/**
 * `corral templates ...`: compute templates (the size of a cluster's pods:
 * CPUs, GiB of memory, GPUs) through the `/apis/v1/...` routes.
 */
import {
  noPositionals,
  onePositional,
  type ParsedArgs,
  stringFlag,
  wholeNumber,
} from "./args.ts";
import { type CommandGroup, withClient } from "./command.ts";
import { EXIT_OK, UsageError } from "./errors.ts";
import { namespaceOf, readObjectFile } from "./files.ts";
import {
  ALL_NAMESPACES,
  getObject,
  type Kind,
  listObjects,
  OUTPUT,
} from "./resources.ts";
import type { ComputeTemplate } from "./types.ts";

const API = "/apis/v1";

function templatePath(namespace: string, name?: string): string {
  const base = `${API}/namespaces/${
    encodeURIComponent(namespace)
  }/compute_templates`;
  return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
}

/** Compute templates as the CLI lists and gets them. */
const TEMPLATE_KIND: Kind<ComputeTemplate> = {
  noun: "template",
  plural: "compute templates",
  listField: "computeTemplates",
  allPath: `${API}/compute_templates`,
  path: templatePath,
  header: ["NAME", "CPU", "MEMORY", "GPU"],
  cells: (t) => [
    t.name,
    String(t.cpu ?? 0),
    `${t.memory ?? 0}${t.memoryUnit || "Gi"}`,
    t.gpuAccelerator && t.gpu
      ? `${t.gpu} (${t.gpuAccelerator})`
      : String(t.gpu ?? 0),
  ],
  namespaceOf: (t) => t.namespace ?? "",
};

const LIST_USAGE = "templates list [-n NS | -A] [-o table|json|yaml]";
const GET_USAGE = "templates get NAME [-n NS] [-o table|json|yaml]";

const SIZE_FLAGS = ["name", "cpu", "memory", "gpu", "gpu-accelerator"];

/** The template the flags describe: --name, --cpu and --memory needed. */
function templateFromFlags(values: ParsedArgs["values"]): ComputeTemplate {
  const missing = ["name", "cpu", "memory"].filter((f) =>
    values[f] === undefined
  );
  if (missing.length > 0) {
    throw new UsageError(
      `${missing.map((f) => `--${f}`).join(", ")} ${
        missing.length === 1 ? "is" : "are"
      } required without -f`,
      [`  usage: ${CREATE_USAGE}`],
    );
  }
  const gpu = wholeNumber(values, "gpu");
  const accelerator = stringFlag(values, "gpu-accelerator");
  return {
    name: stringFlag(values, "name")!,
    cpu: wholeNumber(values, "cpu"),
    memory: wholeNumber(values, "memory", "Gi"),
    ...(gpu === undefined ? {} : { gpu }),
    ...(accelerator === undefined ? {} : { gpuAccelerator: accelerator }),
  };
}

async function create({ values, positionals }: ParsedArgs): Promise<number> {
  noPositionals(positionals, CREATE_USAGE);
  const file = stringFlag(values, "filename");
  const sizeFlags = SIZE_FLAGS.filter((f) => values[f] !== undefined);
  if (file !== undefined && sizeFlags.length > 0) {
    throw new UsageError(
      `-f and --${sizeFlags[0]} cannot be used together: the file says it all`,
    );
  }
  const template = file === undefined
    ? templateFromFlags(values)
    : await readObjectFile(file, "compute template") as ComputeTemplate;
  return await withClient(values, async (client, connection) => {
    const namespace = namespaceOf(template, values, connection.namespace);
    const created = await client.call<ComputeTemplate>(
      "POST",
      templatePath(namespace),
      { ...template, namespace },
    );
    console.log(`compute template ${namespace}/${created.name} created`);
    return EXIT_OK;
  });
}
const CREATE_USAGE =
  "templates create (-f FILE | --name NAME --cpu N --memory GIB [--gpu N]) [-n NS]";

async function remove({ values, positionals }: ParsedArgs): Promise<number> {
  const name = onePositional(positionals, "a template name", DELETE_USAGE);
  return await withClient(values, async (client, { namespace }) => {
    await client.call("DELETE", templatePath(namespace, name));
    console.log(`compute template ${namespace}/${name} deleted`);
    return EXIT_OK;
  });
}
const DELETE_USAGE = "templates delete NAME [-n NS]";

export const TEMPLATES: CommandGroup = {
  name: "templates",
  summary: "manage compute templates, the sizes clusters' pods are made with",
  commands: [
    {
      name: "list",
      summary: "list the compute templates of a namespace, or of all (-A)",
      usage: LIST_USAGE,
      flags: { ...ALL_NAMESPACES, ...OUTPUT },
      run: listObjects(TEMPLATE_KIND, LIST_USAGE),
    },
    {
      name: "get",
      completeNames: "templates",
      summary: "show one compute template",
      usage: GET_USAGE,
      flags: OUTPUT,
      run: getObject(TEMPLATE_KIND, GET_USAGE),
    },
    {
      name: "create",
      summary: "create a compute template from a file or from flags",
      usage: CREATE_USAGE,
      flags: {
        filename: {
          type: "string",
          short: "f",
          value: "FILE",
          help: "the ComputeTemplate as YAML or JSON (- for standard input)",
        },
        name: { type: "string", value: "NAME", help: "the template's name" },
        cpu: { type: "string", value: "N", help: "CPU cores" },
        memory: {
          type: "string",
          value: "GIB",
          help: "memory in GiB (4 or 4Gi)",
        },
        gpu: { type: "string", value: "N", help: "GPUs (default 0)" },
        "gpu-accelerator": {
          type: "string",
          value: "TYPE",
          help: "the GPUs' accelerator type, e.g. nvidia-tesla-t4",
        },
      },
      examples: [
        "corral templates create --name small --cpu 2 --memory 4 -n team-a",
        "corral templates create -f gpu.yaml",
      ],
      run: create,
    },
    {
      name: "delete",
      completeNames: "templates",
      summary: "delete a compute template no cluster uses",
      usage: DELETE_USAGE,
      flags: {},
      run: remove,
    },
  ],
};
