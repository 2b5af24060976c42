/**
 * Compute templates as ConfigMaps through CoreV1Api: the template
 * operations of the direct orchestrator. Only ConfigMaps with the
 * compute-template labels are templates; get and delete never touch
 * another ConfigMap.
 */
import { Code, ServiceError } from "../domain/errors.ts";
import { isLabelValue } from "../domain/kubernetes_names.ts";
import type { CallOptions } from "../domain/ports.ts";
import {
  COMPUTE_TEMPLATE_SELECTOR,
  type ConfigMap,
  isComputeTemplate,
  LABEL,
} from "../domain/resources.ts";
import type { CoreV1Port } from "./client_ports.ts";
import type { KubernetesCall } from "./errors.ts";
import { asConfigMap, configMapBody } from "./json.ts";
import {
  type KubernetesCaller,
  notFound,
  qualified,
} from "./kubernetes_call.ts";

/** A call on one template, as error messages describe it. */
function templateCall(
  verb: KubernetesCall["verb"],
  namespace: string,
  name: string,
): KubernetesCall {
  return {
    action: `Cannot ${verb} compute template "${qualified(namespace, name)}"`,
    verb,
    noun: "compute template",
  };
}

export class ComputeTemplateCalls {
  readonly #caller: KubernetesCaller;
  readonly #core: CoreV1Port;

  constructor(caller: KubernetesCaller, core: CoreV1Port) {
    this.#caller = caller;
    this.#core = core;
  }

  async create(
    configMap: ConfigMap,
    options?: CallOptions,
  ): Promise<ConfigMap> {
    const namespace = configMap.metadata.namespace ?? "";
    const name = configMap.metadata.name;
    const description = templateCall("create", namespace, name);
    try {
      return asConfigMap(
        await this.#caller.call(
          description,
          "configmaps",
          (config) =>
            this.#core.createNamespacedConfigMap(
              { namespace, body: configMapBody(configMap) },
              config,
            ),
          options,
        ),
      );
    } catch (error) {
      if (
        !(error instanceof ServiceError) || error.code !== Code.ALREADY_EXISTS
      ) throw error;
      // Say whether the name is taken by a template or by another
      // ConfigMap; the extra read happens only on this failure path.
      const taken = await this.#caller.call(
        templateCall("get", namespace, name),
        "configmaps",
        (config) =>
          this.#core.readNamespacedConfigMap({ namespace, name }, config),
        options,
      ).catch(() => undefined);
      if (taken && !isComputeTemplate(asConfigMap(taken))) {
        throw new ServiceError(
          Code.ALREADY_EXISTS,
          `${description.action}: a ConfigMap that is not a compute template already has that name`,
          { cause: error.cause },
        );
      }
      throw error;
    }
  }

  get(
    namespace: string,
    name: string,
    options?: CallOptions,
  ): Promise<ConfigMap> {
    return this.#read(
      templateCall("get", namespace, name),
      namespace,
      name,
      options,
    );
  }

  async list(
    namespace?: string,
    names?: string[],
    options?: CallOptions,
  ): Promise<ConfigMap[]> {
    let labelSelector = COMPUTE_TEMPLATE_SELECTOR;
    if (names !== undefined) {
      // Template names are label values; a name that cannot be one cannot
      // match, and would make the selector invalid.
      const wanted = [...new Set(names)].filter(isLabelValue);
      if (wanted.length === 0) return [];
      labelSelector += `,${LABEL.computeTemplate} in (${wanted.join(",")})`;
    }
    const description: KubernetesCall = {
      action: namespace === undefined
        ? "Cannot list compute templates"
        : `Cannot list compute templates in namespace "${namespace}"`,
      verb: "list",
      noun: "compute template",
    };
    const list = await this.#caller.call(
      description,
      "configmaps",
      (config) =>
        namespace === undefined
          ? this.#core.listConfigMapForAllNamespaces({ labelSelector }, config)
          : this.#core.listNamespacedConfigMap(
            { namespace, labelSelector },
            config,
          ),
      options,
    );
    return list.items.map(asConfigMap);
  }

  async delete(
    namespace: string,
    name: string,
    options?: CallOptions,
  ): Promise<void> {
    const description = templateCall("delete", namespace, name);
    const configMap = await this.#read(description, namespace, name, options);
    await this.#caller.call(
      description,
      "configmaps",
      (config) =>
        this.#core.deleteNamespacedConfigMap(
          {
            namespace,
            name,
            body: { preconditions: { uid: configMap.metadata.uid } },
          },
          config,
        ),
      options,
    );
  }

  async #read(
    description: KubernetesCall,
    namespace: string,
    name: string,
    options?: CallOptions,
  ): Promise<ConfigMap> {
    const configMap = asConfigMap(
      await this.#caller.call(
        { ...description, verb: "get" },
        "configmaps",
        (config) =>
          this.#core.readNamespacedConfigMap({ namespace, name }, config),
        options,
      ),
    );
    if (!isComputeTemplate(configMap)) throw notFound(description);
    return configMap;
  }
}
