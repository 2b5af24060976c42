/**
 * The quota records (domain/ports.ts, QuotaRecordPort) as ConfigMaps of
 * Corral's own, one per namespace, named QUOTA_RECORD_NAME, its charges
 * under one data key. Every call asks Kubernetes: the record is what
 * replicas take turns on, by the resourceVersion a replace carries as its
 * precondition (409 Conflict -> ABORTED), as Kubernetes' own ResourceQuota
 * admission takes turns on a ResourceQuota's status.
 *
 * A ConfigMap, not a resource of Corral's own: it needs no CRD installed,
 * and Corral may already write ConfigMaps (compute templates) in every
 * namespace it serves. Its labels keep it out of the compute templates'
 * selector.
 */
import { Code, ServiceError } from "../domain/errors.ts";
import type {
  CallOptions,
  QuotaRecord,
  QuotaRecordPort,
} from "../domain/ports.ts";
import type { ConfigMap } from "../domain/resources.ts";
import type { CoreV1Port } from "./client_ports.ts";
import type { KubernetesCaller } from "./kubernetes_call.ts";
import { configMapBody } from "./json.ts";

export const QUOTA_RECORD_NAME = "corral-quota-usage";
/** Where the charges are kept in the ConfigMap's data. */
const CHARGES_KEY = "charges.json";
export const QUOTA_RECORD_LABELS = {
  "app.kubernetes.io/managed-by": "corral",
  "app.kubernetes.io/component": "quota-usage",
} as const;
const SELECTOR = Object.entries(QUOTA_RECORD_LABELS)
  .map(([key, value]) => `${key}=${value}`).join(",");

const NOUN = "quota record";

export class QuotaRecordCalls implements QuotaRecordPort {
  readonly #caller: KubernetesCaller;
  readonly #core: CoreV1Port;

  constructor(caller: KubernetesCaller, core: CoreV1Port) {
    this.#caller = caller;
    this.#core = core;
  }

  async read(
    namespace: string,
    options?: CallOptions,
  ): Promise<QuotaRecord | undefined> {
    try {
      const found = await this.#caller.call(
        { action: this.#action("read", namespace), verb: "get", noun: NOUN },
        "configmaps",
        (config) =>
          this.#core.readNamespacedConfigMap(
            { namespace, name: QUOTA_RECORD_NAME },
            config,
          ),
        options,
      );
      return recordOf(found as ConfigMap);
    } catch (error) {
      if (error instanceof ServiceError && error.code === Code.NOT_FOUND) {
        return undefined;
      }
      throw error;
    }
  }

  async write(
    namespace: string,
    charges: string,
    resourceVersion: string | undefined,
    options?: CallOptions,
  ): Promise<QuotaRecord> {
    const configMap: ConfigMap = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: QUOTA_RECORD_NAME,
        namespace,
        labels: { ...QUOTA_RECORD_LABELS },
        ...(resourceVersion === undefined ? {} : { resourceVersion }),
      },
      data: { [CHARGES_KEY]: charges },
    };
    const action = this.#action("write", namespace);
    const written = resourceVersion === undefined
      ? await this.#caller.call(
        { action, verb: "create", noun: NOUN },
        "configmaps",
        (config) =>
          this.#core.createNamespacedConfigMap(
            { namespace, body: configMapBody(configMap) },
            config,
          ),
        options,
      )
      : await this.#caller.call(
        { action, verb: "update", noun: NOUN },
        "configmaps",
        (config) =>
          this.#core.replaceNamespacedConfigMap(
            {
              namespace,
              name: QUOTA_RECORD_NAME,
              body: configMapBody(configMap, "update"),
            },
            config,
          ),
        options,
      );
    return recordOf(written as ConfigMap);
  }

  async namespaces(
    namespaces: readonly string[],
    options?: CallOptions,
  ): Promise<string[]> {
    const description = {
      action: "Cannot list quota records",
      verb: "list" as const,
      noun: NOUN,
    };
    const query = { labelSelector: SELECTOR };
    // A namespaced Role cannot list across namespaces: each served one on
    // its own, as the cache lists them.
    const lists = namespaces.length === 0
      ? [
        this.#caller.call(
          description,
          "configmaps",
          (config) => this.#core.listConfigMapForAllNamespaces(query, config),
          options,
        ),
      ]
      : namespaces.map((namespace) =>
        this.#caller.call(
          description,
          "configmaps",
          (config) =>
            this.#core.listNamespacedConfigMap({ namespace, ...query }, config),
          options,
        )
      );
    const found: string[] = [];
    for (const list of await Promise.all(lists)) {
      for (const item of list.items ?? []) {
        if (item.metadata?.name !== QUOTA_RECORD_NAME) continue;
        found.push(item.metadata.namespace ?? "");
      }
    }
    return found.sort();
  }

  #action(doing: string, namespace: string): string {
    return `Cannot ${doing} the quota record of namespace "${namespace}"`;
  }
}

function recordOf(configMap: ConfigMap): QuotaRecord {
  return {
    charges: configMap.data?.[CHARGES_KEY] ?? "",
    resourceVersion: configMap.metadata?.resourceVersion ?? "",
  };
}
