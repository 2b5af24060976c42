/**
 * The handlers of proto.ComputeTemplateService. The dispatcher has
 * authorized each call before it arrives here (its scope says where).
 */
import {
  clusterFromResource,
  DEFAULT_GPU_RESOURCE,
  referencedTemplates,
} from "../../domain/conversions.ts";
import {
  computeTemplateFromConfigMap,
  computeTemplateToConfigMap,
} from "../../domain/template_conversions.ts";
import type { PageRequest } from "../../domain/pagination.ts";
import type { CallOptions } from "../../domain/ports.ts";
import type {
  ComputeTemplate,
  CreateComputeTemplateRequest,
  DeleteComputeTemplateRequest,
  GetComputeTemplateRequest,
  ListAllComputeTemplatesRequest,
  ListAllComputeTemplatesResponse,
  ListComputeTemplatesRequest,
  ListComputeTemplatesResponse,
} from "../../domain/types.ts";
import { templateInUseError } from "../../domain/template_errors.ts";
import { validateCreateComputeTemplate } from "../../domain/template_validation.ts";
import {
  listedIn,
  listPage,
  type Namespaces,
  type Service,
} from "./service.ts";
import { KINDS } from "../../domain/kinds.ts";
import { invalidArgument } from "../../domain/errors.ts";
import { UNLISTED } from "../auth/accelerators.ts";
import { allowsExtendedResource } from "../auth/workload_decision.ts";
import type { CallContext, NamespaceScope, NamespacesScope } from "./rpcs.ts";

type NamespaceCall = CallContext<NamespaceScope>;

export class ComputeTemplateHandlers {
  constructor(private readonly service: Service) {}

  async createComputeTemplate(
    request: CreateComputeTemplateRequest,
    call: NamespaceCall,
  ): Promise<ComputeTemplate> {
    const { log, kube, scope } = call;
    validateCreateComputeTemplate(request, this.service.limits);
    this.checkAccelerator(request.computeTemplate!, call);
    const template = {
      ...request.computeTemplate!,
      namespace: scope.namespace,
    };
    const created = await this.service.orchestrator.templates.create(
      computeTemplateToConfigMap(template),
      kube,
    );
    log.info("Created compute template", {
      namespace: template.namespace,
      name: template.name,
    });
    return computeTemplateFromConfigMap(created);
  }

  /**
   * The extended resource a template's pods would ask for (its
   * gpuAccelerator, nvidia.com/gpu when it has GPUs and names none) must
   * be an accelerator of the policy or allowed by a rule that grants the
   * create: INVALID_ARGUMENT otherwise, as the workload admission would
   * refuse every cluster that used the template.
   */
  private checkAccelerator(
    template: ComputeTemplate,
    { scope, caller, action }: NamespaceCall,
  ): void {
    const named = template.gpuAccelerator !== "";
    const resource = named
      ? template.gpuAccelerator
      : template.gpu > 0
      ? DEFAULT_GPU_RESOURCE
      : "";
    if (
      allowsExtendedResource(scope.rules, resource, caller.accelerators?.())
    ) return;
    throw invalidArgument(action, [{
      field: "computeTemplate.gpuAccelerator",
      description: `"${resource}"${
        named ? "" : " (the default)"
      } is ${UNLISTED}`,
    }]);
  }

  async getComputeTemplate(
    request: GetComputeTemplateRequest,
    { kube, scope }: NamespaceCall,
  ): Promise<ComputeTemplate> {
    return computeTemplateFromConfigMap(
      await this.service.orchestrator.templates.get(
        scope.namespace,
        request.name,
        kube,
      ),
    );
  }

  async listComputeTemplates(
    request: ListComputeTemplatesRequest,
    call: NamespaceCall,
  ): Promise<ListComputeTemplatesResponse> {
    const { items, nextPageToken } = await this.#page(request, call);
    return { computeTemplates: items, nextPageToken };
  }

  async listAllComputeTemplates(
    request: ListAllComputeTemplatesRequest,
    call: CallContext<NamespacesScope>,
  ): Promise<ListAllComputeTemplatesResponse> {
    const { items, nextPageToken } = await this.#page(request, call);
    return { computeTemplates: items, nextPageToken };
  }

  #page(request: PageRequest, call: CallContext) {
    return listPage(
      request,
      "computetemplates",
      call,
      (namespace) => this.templatesIn(namespace, call.kube),
    );
  }

  async deleteComputeTemplate(
    request: DeleteComputeTemplateRequest,
    { log, kube, scope }: NamespaceCall,
  ): Promise<Record<string, never>> {
    const { namespace } = scope;
    const { name } = request;
    const { orchestrator } = this.service;
    // Clusters keep the names of their templates (pod annotation
    // ray.io/compute-template); one list of the namespace's clusters finds
    // those that use this one. Kubernetes has no transaction across
    // objects, so a cluster created between this list and the delete still
    // slips through: the guard catches the common mistake, not a race. The
    // KubeRay API server has no such guard at all.
    const users = (await orchestrator.clusters.list(namespace, kube))
      .map((resource) => clusterFromResource(resource, []))
      .filter((cluster) => referencedTemplates(cluster).includes(name))
      .map((cluster) => cluster.name);
    if (users.length > 0) {
      throw templateInUseError(namespace, name, users);
    }
    await orchestrator.templates.delete(namespace, name, kube);
    log.info("Deleted compute template", { namespace, name });
    return {};
  }

  /** The templates of one namespace, of several, or (undefined) of all. */
  private templatesIn(namespace: Namespaces, kube: CallOptions) {
    return listedIn(
      this.service.orchestrator.templates,
      namespace,
      kube,
      (configMaps) =>
        configMaps.map((configMap) => KINDS.templates.message(configMap, [])),
    );
  }
}
