/**
 * The one service implementation: a handler for every RPC of the API, by
 * its key. Both transports decode their request into message form
 * (domain/codec.ts) and hand it to the dispatcher, which authorizes the
 * call from its row in rpcs.ts and then calls the handler here in-process.
 * Each resource's handlers are in their own file, bound one service of
 * the proto at a time (bind_service.ts); the compiler holds each to its
 * method's request and response types (domain/types.ts ApiMethods) and to
 * the scope its row gives.
 */
import { ClusterHandlers } from "./clusters.ts";
import { ExpiryHandlers } from "./expiry.ts";
import { ComputeTemplateHandlers } from "./compute_templates.ts";
import { JobHandlers } from "./jobs.ts";
import { JobLogHandlers } from "./job_logs.ts";
import {
  JobSubmissionHandlers,
  type JobSubmissionOptions,
} from "./job_submissions.ts";
import { QuotaHandlers } from "./quotas.ts";
import { RayServiceHandlers } from "./ray_services.ts";
import type { Handlers } from "./rpcs.ts";
import { bindService } from "./bind_service.ts";
import { type Service, serviceOf, type ServiceOptions } from "./service.ts";
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
  return handlersOf(serviceOf(options), options.jobSubmissions);
}

/**
 * The handlers over `service`, which what else serves the API shares (the
 * Kubernetes-shaped routes: their quotas take turns with the RPCs').
 */
export function handlersOf(
  service: Service,
  jobSubmissions?: Omit<JobSubmissionOptions, "orchestrator">,
): Handlers {
  const clusters = new ClusterHandlers(service);
  const expiry = new ExpiryHandlers(service);
  const templates = new ComputeTemplateHandlers(service);
  const watch = new WatchHandlers(service.watches, service.jobWatches);
  const jobs = new JobHandlers(service);
  const jobLogs = new JobLogHandlers(service);
  const services = new RayServiceHandlers(service);
  const quotas = new QuotaHandlers(service);
  const submissions = new JobSubmissionHandlers({
    ...jobSubmissions,
    orchestrator: service.orchestrator,
  });
  return {
    ...bindService("proto.ClusterService", clusters, expiry, watch),
    ...bindService("proto.ComputeTemplateService", templates),
    ...bindService("proto.RayJobService", jobs, jobLogs, watch),
    ...bindService("proto.RayServeService", services),
    ...bindService("proto.RayJobSubmissionService", submissions),
    ...bindService("proto.QuotaService", quotas),
  };
}
