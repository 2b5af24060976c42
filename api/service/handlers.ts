/**
 * The one service implementation: a handler for every RPC of the API, by
 * its key. Both transports decode their request into message form
 * (domain/codec.ts) and hand it to the dispatcher, which authorizes the
 * call from its row in rpcs.ts and then calls the handler here in-process.
 * Each resource's handlers are in their own file; the compiler holds each
 * to its method's request and response types (domain/types.ts ApiMethods)
 * and to the scope its row gives.
 */
import { ClusterHandlers } from "./clusters.ts";
import { ExpiryHandlers } from "./expiry.ts";
import { ComputeTemplateHandlers } from "./compute_templates.ts";
import { JobHandlers } from "./jobs.ts";
import {
  JobSubmissionHandlers,
  type JobSubmissionOptions,
} from "./job_submissions.ts";
import { QuotaHandlers } from "./quotas.ts";
import { RayServiceHandlers } from "./ray_services.ts";
import type { Handlers } from "./rpcs.ts";
import { serviceOf, type ServiceOptions } from "./service.ts";
import { WatchHandlers } from "./watch.ts";

export type { ServiceOptions } from "./service.ts";

/**
 * `jobSubmissions`: the dashboards' job API for RayJobSubmissionService;
 * without it those methods answer UNIMPLEMENTED.
 */
export function createHandlers(
  options: ServiceOptions & {
    jobSubmissions?: Omit<JobSubmissionOptions, "orchestrator">;
  },
): Handlers {
  const service = serviceOf(options);
  const clusters = new ClusterHandlers(service);
  const expiry = new ExpiryHandlers(service);
  const templates = new ComputeTemplateHandlers(service);
  const watch = new WatchHandlers(service.watches, service.jobWatches);
  const jobs = new JobHandlers(service);
  const services = new RayServiceHandlers(service);
  const quotas = new QuotaHandlers(service);
  const submissions = new JobSubmissionHandlers({
    ...options.jobSubmissions,
    orchestrator: service.orchestrator,
  });
  return {
    "proto.ClusterService/CreateCluster": (request, call) =>
      clusters.createCluster(request, call),
    "proto.ClusterService/GetCluster": (request, call) =>
      clusters.getCluster(request, call),
    "proto.ClusterService/ListCluster": (request, call) =>
      clusters.listCluster(request, call),
    "proto.ClusterService/ListAllClusters": (request, call) =>
      clusters.listAllClusters(request, call),
    "proto.ClusterService/UpdateCluster": (request, call) =>
      clusters.updateCluster(request, call),
    "proto.ClusterService/ExtendCluster": (request, call) =>
      expiry.extendCluster(request, call),
    "proto.ClusterService/DeleteCluster": (request, call) =>
      clusters.deleteCluster(request, call),
    "proto.ClusterService/WatchClusters": (request, call) =>
      watch.watchClusters(request, call),
    "proto.ComputeTemplateService/CreateComputeTemplate": (request, call) =>
      templates.createComputeTemplate(request, call),
    "proto.ComputeTemplateService/GetComputeTemplate": (request, call) =>
      templates.getComputeTemplate(request, call),
    "proto.ComputeTemplateService/ListComputeTemplates": (request, call) =>
      templates.listComputeTemplates(request, call),
    "proto.ComputeTemplateService/ListAllComputeTemplates": (request, call) =>
      templates.listAllComputeTemplates(request, call),
    "proto.ComputeTemplateService/DeleteComputeTemplate": (request, call) =>
      templates.deleteComputeTemplate(request, call),
    "proto.RayJobService/CreateRayJob": (request, call) =>
      jobs.createRayJob(request, call),
    "proto.RayJobService/GetRayJob": (request, call) =>
      jobs.getRayJob(request, call),
    "proto.RayJobService/ListRayJobs": (request, call) =>
      jobs.listRayJobs(request, call),
    "proto.RayJobService/ListAllRayJobs": (request, call) =>
      jobs.listAllRayJobs(request, call),
    "proto.RayJobService/UpdateRayJob": (request, call) =>
      jobs.updateRayJob(request, call),
    "proto.RayJobService/DeleteRayJob": (request, call) =>
      jobs.deleteRayJob(request, call),
    "proto.RayJobService/WatchRayJobs": (request, call) =>
      watch.watchRayJobs(request, call),
    "proto.RayServeService/CreateRayService": (request, call) =>
      services.createRayService(request, call),
    "proto.RayServeService/GetRayService": (request, call) =>
      services.getRayService(request, call),
    "proto.RayServeService/ListRayServices": (request, call) =>
      services.listRayServices(request, call),
    "proto.RayServeService/ListAllRayServices": (request, call) =>
      services.listAllRayServices(request, call),
    "proto.RayServeService/UpdateRayService": (request, call) =>
      services.updateRayService(request, call),
    "proto.RayServeService/DeleteRayService": (request, call) =>
      services.deleteRayService(request, call),
    "proto.RayJobSubmissionService/SubmitRayJob": (request, call) =>
      submissions.submitRayJob(request, call),
    "proto.RayJobSubmissionService/GetJobDetails": (request, call) =>
      submissions.getJobDetails(request, call),
    "proto.RayJobSubmissionService/GetJobLog": (request, call) =>
      submissions.getJobLog(request, call),
    "proto.RayJobSubmissionService/ListJobDetails": (request, call) =>
      submissions.listJobDetails(request, call),
    "proto.RayJobSubmissionService/StopRayJob": (request, call) =>
      submissions.stopRayJob(request, call),
    "proto.RayJobSubmissionService/DeleteRayJob": (request, call) =>
      submissions.deleteRayJob(request, call),
    "proto.RayJobSubmissionService/WatchJobLog": (request, call) =>
      submissions.watchJobLog(request, call),
    "proto.RayJobSubmissionService/UploadJobPackage": (request, call) =>
      submissions.uploadJobPackage(request, call),
    "proto.QuotaService/GetQuotaUsage": (request, call) =>
      quotas.getQuotaUsage(request, call),
  };
}
