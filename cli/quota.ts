/**
 * `corral quota`: the quotas that apply to the caller in a namespace, each
 * dimension as "used / limit", from GetQuotaUsage
 * (`GET /apis/v1alpha2/namespaces/{namespace}/quota`). The server decides
 * which quotas apply (the namespace's total, the caller's own), so the
 * command shows exactly what a create or scale-up is checked against.
 */
import { noPositionals, type ParsedArgs } from "./args.ts";
import { type Command, withClient, write } from "./command.ts";
import { EXIT_OK } from "./errors.ts";
import { formatObject, formatTable, outputFormat } from "./output.ts";

/** Amounts by dimension, as the API answers them (memory in GiB). */
export interface QuotaAmounts {
  clusters?: number;
  workers?: number;
  cpu?: number;
  gpu?: number;
  memoryGib?: number;
  /** Accelerators by resource name, each also counted in gpu. */
  accelerators?: Record<string, number>;
}

/** One quota that applies, with what it counts. */
export interface QuotaStatus {
  /** "team-a", or `user "ada" in team-a`. */
  scope?: string;
  limits?: QuotaAmounts;
  /**
   * The dimensions it limits: clusters, workers, cpu, gpu, memory, and
   * the accelerator resources it names ("nvidia.com/mig-1g.10gb").
   */
  limited?: string[];
  used?: QuotaAmounts;
}

/** GetQuotaUsage's answer. */
export interface QuotaUsage {
  namespace?: string;
  used?: QuotaAmounts;
  quotas?: QuotaStatus[];
}

const USAGE = "quota [-n NS] [-o table|json|yaml]";

/** The table's columns: header, the dimension's name in `limited`, field. */
const COLUMNS: [string, string, Exclude<keyof QuotaAmounts, "accelerators">][] =
  [
    ["CLUSTERS", "clusters", "clusters"],
    ["WORKERS", "workers", "workers"],
    ["CPUS", "cpu", "cpu"],
    ["GPUS", "gpu", "gpu"],
    ["MEMORY", "memory", "memoryGib"],
  ];

/** A count as a person reads it: whole, or to two decimals (0.5 CPUs). */
function count(value: number): string {
  return Number.isInteger(value)
    ? String(value)
    : value.toFixed(2).replace(/\.?0+$/, "");
}

/**
 * GiB in the unit that reads best, as Kubernetes quantities are written:
 * Mi under one GiB, Ti from 1024 GiB, Gi between ("512Mi", "8Gi", "1.5Ti").
 */
export function memory(gib: number): string {
  if (gib === 0) return "0";
  if (gib < 1) return `${count(Math.round(gib * 1024))}Mi`;
  if (gib >= 1024) return `${count(gib / 1024)}Ti`;
  return `${count(gib)}Gi`;
}

/** One dimension of a quota: "used / limit", "-" when it is not limited. */
function cell(quota: QuotaStatus, [, dimension, field]: typeof COLUMNS[0]) {
  if (!(quota.limited ?? []).includes(dimension)) return "-";
  const shown = field === "memoryGib" ? memory : count;
  return `${shown(quota.used?.[field] ?? 0)} / ${
    shown(quota.limits?.[field] ?? 0)
  }`;
}

/**
 * The answer as `corral quota` prints it: a table with a row per quota,
 * or a sentence saying that none applies.
 */
export function quotaTable(usage: QuotaUsage): string {
  const quotas = usage.quotas ?? [];
  if (quotas.length === 0) {
    return `No quotas apply to you in namespace ${usage.namespace ?? ""}\n`;
  }
  // A column for each accelerator resource a quota names.
  const named = [
    ...new Set(
      quotas.flatMap((quota) =>
        (quota.limited ?? []).filter((name) => name.includes("/"))
      ),
    ),
  ];
  return formatTable(
    ["QUOTA", ...COLUMNS.map(([header]) => header), ...named],
    quotas.map((quota) => [
      quota.scope ?? "",
      ...COLUMNS.map((column) => cell(quota, column)),
      ...named.map((name) => namedCell(quota, name)),
    ]),
  );
}

/** An accelerator resource a quota names: "used / limit", else "-". */
function namedCell(quota: QuotaStatus, name: string): string {
  if (!(quota.limited ?? []).includes(name)) return "-";
  return `${count(quota.used?.accelerators?.[name] ?? 0)} / ${
    count(quota.limits?.accelerators?.[name] ?? 0)
  }`;
}

async function quota({ values, positionals }: ParsedArgs): Promise<number> {
  noPositionals(positionals, USAGE);
  const format = outputFormat(values.output);
  return await withClient(values, async (client, { namespace }) => {
    const usage = await client.call<QuotaUsage>(
      "GET",
      `/apis/v1alpha2/namespaces/${encodeURIComponent(namespace)}/quota`,
    );
    // A quota has no wider table.
    write(
      format === "json" || format === "yaml"
        ? formatObject(usage, format)
        : quotaTable(usage),
    );
    return EXIT_OK;
  });
}

export const QUOTA: Command = {
  name: "quota",
  summary: "show the quotas that apply to you in a namespace, used / limit",
  usage: USAGE,
  flags: {
    output: {
      type: "string",
      short: "o",
      value: "FORMAT",
      help: "table (default), json or yaml",
    },
  },
  examples: [
    "corral quota -n team-a",
    "corral quota -o json",
  ],
  run: quota,
};
