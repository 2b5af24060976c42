/**
 * The chain's authorization step: from an RPC's row (rpcs.ts) and its
 * decoded request, the namespaces the call may act in, or a refusal,
 * before any handler code runs. --namespaces (the namespaces this Corral
 * serves) is checked first, then the policy; the request's key (namespace,
 * and the name of an existing object) is validated here too, so no handler
 * sees a call it must still check.
 */
import type { Message } from "../../domain/message_form.ts";
import { Code, ServiceError } from "../../domain/errors.ts";
import {
  validateClusterKey,
  validateNamespace,
} from "../../domain/key_validation.ts";
import type { Caller } from "../auth/caller.ts";
import { AuthorizationError } from "../auth/authorization_error.ts";
import type { Resource } from "../auth/policy.ts";
import type { NamespaceScope, RpcRule, Scope } from "./rpcs.ts";

/** How each resource is called in messages: one, and several. */
const NOUNS: Record<Resource, [one: string, several: string]> = {
  clusters: ["cluster", "clusters"],
  computetemplates: ["compute template", "compute templates"],
  jobs: ["job", "jobs"],
  services: ["service", "services"],
  quotas: ["quota", "quotas"],
};

/** The request's namespace, "" when it has none. */
export function namespaceOf(request: Message | undefined): string {
  const namespace = request?.namespace;
  return typeof namespace === "string" ? namespace : "";
}

/** The name of the object the request acts on, as the row says where. */
export function nameOf(
  rule: RpcRule | undefined,
  request: Message | undefined,
): string {
  if (!rule?.name || !request) return "";
  let value: unknown = request;
  for (const part of rule.name.split(".")) {
    value = (value as Message | undefined)?.[part];
  }
  return typeof value === "string" ? value : "";
}

/**
 * `Cannot get cluster "team-a/blue"`, `Cannot list clusters in namespace
 * "team-a"`, `Cannot list clusters`: what every error of the call starts
 * with.
 */
export function actionOf(rule: RpcRule, request: Message): string {
  const [one, several] = NOUNS[rule.resource];
  const namespace = rule.namespace === "all" ? "" : namespaceOf(request);
  if (rule.name) {
    const name = nameOf(rule, request);
    const what = name !== "" && namespace !== ""
      ? ` "${namespace}/${name}"`
      : name !== ""
      ? ` "${name}"`
      : namespace !== ""
      ? ` in namespace "${namespace}"`
      : "";
    return `Cannot ${rule.verb} ${one}${what}`;
  }
  const where = namespace !== "" ? ` in namespace "${namespace}"` : "";
  return `Cannot ${rule.verb} ${several}${where}`;
}

/**
 * Where `caller` may make this call: one namespace with the rules that
 * allow it, or the namespaces a call across namespaces covers. Throws
 * PERMISSION_DENIED (a namespace not served, or no rule), or
 * INVALID_ARGUMENT for a key that is not one.
 */
export function authorize(
  rule: RpcRule,
  request: Message,
  caller: Caller,
  action: string,
  served: readonly string[],
): Scope {
  const namespace = namespaceOf(request);
  if (
    rule.namespace === "all" ||
    (rule.namespace === "request-or-all" && namespace === "")
  ) {
    const namespaces = acrossNamespaces(rule, caller, action, served);
    return namespaces === undefined
      ? {
        kind: "namespaces",
        namespaces,
        // "*" covers no reserved namespace (kube-*, Corral's own): one the
        // caller is not granted by name is left out of the answer.
        hidden: once((namespace) =>
          !caller.may(rule.verb, rule.resource, namespace)
        ),
      }
      : { kind: "namespaces", namespaces };
  }
  checkServed(served, namespace, action);
  // An empty namespace can be authorized nowhere: validation says it is
  // required.
  const rules = namespace === ""
    ? []
    : caller.authorize(action, rule.verb, rule.resource, namespace);
  if (rule.name === "name") {
    validateClusterKey({ namespace, name: nameOf(rule, request) }, action);
  } else {
    validateNamespace(namespace, action);
  }
  return { kind: "namespace", namespace, rules };
}

/**
 * The scope of a unit any authenticated caller may use (signing out of a
 * dashboard, whoami): the namespace its request names, with no rules, its
 * key validated as authorize() would.
 */
export function authenticatedOnly(
  rule: RpcRule | undefined,
  request: Message,
  action: string,
): NamespaceScope {
  const namespace = namespaceOf(request);
  if (rule?.name === "name") {
    validateClusterKey({ namespace, name: nameOf(rule, request) }, action);
  } else if (rule?.namespace === "request") {
    validateNamespace(namespace, action);
  }
  return { kind: "namespace", namespace, rules: [] };
}

/** PERMISSION_DENIED when `namespace` is not served. */
function checkServed(
  served: readonly string[],
  namespace: string,
  action: string,
): void {
  if (served.length === 0 || namespace === "") return;
  if (served.includes(namespace)) return;
  throw new ServiceError(
    Code.PERMISSION_DENIED,
    `${action}: namespace "${namespace}" is not served by this Corral (it serves ${
      served.map((n) => `"${n}"`).join(", ")
    })`,
  );
}

/**
 * The namespaces a call across namespaces covers: those both the policy
 * and `served` allow (undefined: all of them); PERMISSION_DENIED when that
 * is none.
 */
function acrossNamespaces(
  rule: RpcRule,
  caller: Caller,
  action: string,
  served: readonly string[],
): readonly string[] | undefined {
  const allowed = caller.namespaces(rule.verb, rule.resource);
  // "*" covers every served namespace but the reserved ones (kube-*,
  // Corral's own) it does not name.
  const namespaces = allowed === "*"
    ? (served.length > 0
      ? served.filter((n) => caller.may(rule.verb, rule.resource, n))
      : undefined)
    : allowed.filter((n) => served.length === 0 || served.includes(n));
  if (namespaces?.length === 0) {
    throw new AuthorizationError(
      "no-rule",
      `${action}: user "${caller.identity.user}" may ${rule.verb} ${rule.resource} in no namespace${
        served.length > 0 ? " this Corral serves" : ""
      }`,
    );
  }
  return namespaces;
}

/** `decide`, asked once per namespace: a list holds thousands of one. */
function once(
  decide: (namespace: string) => boolean,
): (namespace: string) => boolean {
  const decided = new Map<string, boolean>();
  return (namespace) => {
    let answer = decided.get(namespace);
    if (answer === undefined) {
      answer = decide(namespace);
      decided.set(namespace, answer);
    }
    return answer;
  };
}
