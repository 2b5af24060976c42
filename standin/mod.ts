/**
 * The local Kubernetes API stand-in and the simulated operator: development
 * and test tooling, never loaded by the production start path (main.ts's
 * start-up step startup/kubernetes.ts imports this module dynamically, in
 * embedded mode only).
 *
 * The stand-in: a real HTTP server on 127.0.0.1 that
 * speaks the subset of the Kubernetes REST API Corral uses, with the real
 * server's semantics where Corral (or kubectl, or client-node) can observe
 * them: server-set metadata, a global monotonic resourceVersion, optimistic
 * concurrency, label and field selectors, the status subresource, delete
 * preconditions, finalizers, discovery documents, and `Status` error bodies
 * with the real reasons, codes and messages.
 *
 * Built around a registry of resource types and one generic in-memory store:
 * serving another kind is one more entry in the registry. Kind-specific rules
 * (ConfigMap data keys, Event namespaces, Namespace phases) are hooks on the
 * entry.
 *
 * Namespaces are implicit by default: writing into a namespace that does not
 * exist creates it (a Namespace object appears, as `kubectl create ns` would
 * have made it). A real cluster answers 404 `namespaces "x" not found`
 * instead; that behaviour is `implicitNamespaces: false`. Implicit is the
 * default because Corral never creates namespaces (on a real cluster they
 * exist before Corral is used), and requiring them in dev mode would only add
 * a manual step.
 *
 * Watch: `?watch=true` on a list path streams newline-delimited JSON events
 * from a resourceVersion, replaying the retained history of that resource
 * type (bounded, like the watch cache) and honouring selectors,
 * `timeoutSeconds`, `allowWatchBookmarks` and `sendInitialEvents`; a
 * resourceVersion older than the retained history gets the real server's
 * single ERROR event (410 Expired). Lists page with `limit` and continue
 * tokens that carry their snapshot revision (a consistent list; 410 Expired
 * once that revision has left the history).
 *
 * CustomResourceDefinitions: POSTed to apiextensions.k8s.io/v1 (or given as
 * files in the `crds` option) they add or replace served resource types and
 * discovery entries; custom objects of a version with a schema are pruned,
 * defaulted and validated as a real server does (see schema_validation.ts), with
 * `unknown field` warnings, or a 400 under `fieldValidation=Strict`.
 * Deleting a CRD deletes its objects at once. A minimal OpenAPI v3 document
 * per group version tells kubectl that the server validates fields, so
 * `kubectl create -f` and `kubectl apply -f` of custom resources work with
 * kubectl's default strict validation, and carries the CRD schemas for
 * `kubectl explain`.
 *
 * KubeRay: RayCluster, RayJob and RayService are served by default (the
 * latter two at the RayCluster's group and version), with a status
 * subresource; installing KubeRay's CRDs adds their schemas. Deleting an
 * object deletes its dependents by metadata.ownerReferences, as the
 * garbage collector does with background propagation
 * (garbage_collector.ts), so a RayJob's cluster goes with it.
 *
 * Events: stored like any kind, and deleted an hour after their last
 * write, as kube-apiserver's --event-ttl deletes them (event_ttl.ts).
 *
 * Services: core/v1 Services are stored like any kind (one not headless
 * gets clusterIP 127.0.0.1), and the API server's service proxy,
 * `/api/v1/namespaces/{ns}/services/{name}:{port}/proxy/{path}`, forwards
 * to the simulated Ray dashboard whose port a head Service's annotation
 * `corral.dev/simulated-port` names (services.ts; 503 where none). The
 * simulated operator writes each ready cluster's head Service and runs its
 * dashboard (dashboard/: Ray's job REST API, simulated).
 *
 * Service accounts: ServiceAccounts are stored like any kind, every
 * namespace gets its "default" one (as the serviceaccounts controller gives
 * it), `serviceaccounts/{name}/token` issues tokens (token_request.ts), and
 * `authentication.k8s.io/v1` `tokenreviews` reviews them (token_review.ts),
 * so `kubectl create token` and Corral's --authentication-token-review work
 * against the stand-in. Its tokens are opaque random strings, not the JWTs
 * a real server signs: only the stand-in can review them.
 *
 * Not modelled (yet): server-side apply, dryRun (rejected with 400 rather
 * than silently writing), managedFields, strategic merge patch for lists
 * with merge keys (it is treated as a JSON merge patch), Table output
 * (kubectl falls back to its client-side columns), most CEL validation
 * rules, CRD conversion webhooks (versions share one stored form), and
 * protobuf: bodies are JSON only (but for the TokenRequest of `kubectl
 * create token`), so kubectl can read everything and write custom
 * resources, but its other writes of built-in kinds (`kubectl create
 * configmap`, which sends protobuf) are answered 415.
 */

export {
  type Embedded,
  type EmbeddedOptions,
  startEmbedded,
} from "./embedded.ts";
export {
  kubeconfigFor,
  type Standin,
  type StandinOptions,
  startStandin,
} from "./server.ts";
export {
  defaultResources,
  rayClusterResource,
  rayJobResource,
  rayServiceResource,
} from "./registry.ts";
export type {
  KubeObject,
  ObjectMeta,
  RayClusterResourceOptions,
  ResourceType,
  StatusCause,
} from "./types.ts";
export type { StoreEvent } from "./store.ts";
export {
  type OperatorActivity,
  type SimulatedOperator,
  type SimulatedOperatorOptions,
  startSimulatedOperator,
} from "./simulated_operator.ts";
