/**
 * TokenReview, `POST /apis/authentication.k8s.io/v1/tokenreviews`: who a
 * token belongs to, as kube-apiserver answers it
 * (pkg/registry/authentication/tokenreview) for the service-account tokens
 * the stand-in issued (token_request.ts). Cluster-scoped, create only,
 * never stored.
 *
 * A token is authenticated when the stand-in issued it, its audiences
 * intersect the review's spec.audiences (the API server's own audiences
 * when the review names none, so a token requested for "corral" alone is
 * not taken by a review without audiences), it has not expired (with the
 * minute of leeway go-jose gives a JWT's exp), and its service account
 * still exists with the uid it had. The answer is then the service
 * account's user: `system:serviceaccount:NS:NAME`, its uid, the groups
 * system:serviceaccounts, system:serviceaccounts:NS and
 * system:authenticated, the token's JWT ID in extra, and the audiences of
 * the intersection.
 *
 * Otherwise status.authenticated is absent (false, omitted as the real
 * server's JSON omits it) and status.error words why as the real server's
 * service-account authenticator does (pkg/serviceaccount/jwt.go and
 * claims.go), after "invalid bearer token" as its authenticator chain
 * reports it. A token the stand-in did not issue is "invalid bearer token"
 * alone: a real server reviews JWTs by their signature, and only the
 * stand-in can review its own opaque tokens.
 */

import { jsonType } from "./bodies.ts";
import { isRecord, json } from "./json.ts";
import { serviceAccountResource } from "./service_accounts.ts";
import type { State } from "./state.ts";
import { badRequest } from "./status.ts";
import { API_AUDIENCES, type IssuedToken } from "./token_request.ts";
import type { KubeObject, ResourceType } from "./types.ts";

/** go-jose's jwt.DefaultLeeway, with which a JWT's exp is checked. */
const EXPIRY_LEEWAY_MS = 60_000;

const INVALID_BEARER_TOKEN = "invalid bearer token";

/** Go's %q of a []string: `["a" "b"]`. */
function goQuoted(list: string[]): string {
  return `[${list.map((s) => JSON.stringify(s)).join(" ")}]`;
}

type Review =
  | { authenticated: true; issued: IssuedToken; audiences: string[] }
  | { authenticated: false; error: string };

function review(state: State, token: string, wanted: string[]): Review {
  const issued = state.tokens.get(token);
  if (!issued) return { authenticated: false, error: INVALID_BEARER_TOKEN };
  const refuse = (reason: string): Review => ({
    authenticated: false,
    error: `[${INVALID_BEARER_TOKEN}, ${reason}]`,
  });
  const audiences = issued.audiences.filter((a) => wanted.includes(a));
  if (audiences.length === 0) {
    return refuse(
      `token audiences ${
        goQuoted(issued.audiences)
      } is invalid for the target audiences ${goQuoted(wanted)}`,
    );
  }
  if (state.now() > issued.expires + EXPIRY_LEEWAY_MS) {
    return refuse("service account token has expired");
  }
  const accounts = serviceAccountResource(state);
  const account = accounts &&
    state.store.get(accounts, issued.namespace, issued.name);
  if (!account) return refuse(`serviceaccounts "${issued.name}" not found`);
  if (account.metadata.uid !== issued.uid) {
    return refuse(
      `service account UID (${account.metadata.uid}) does not match claim (${issued.uid})`,
    );
  }
  return { authenticated: true, issued, audiences };
}

/** The spec as Go's decoder reads it into a TokenReviewSpec. */
function readSpec(object: KubeObject): { token: string; audiences: string[] } {
  const spec = isRecord(object.spec) ? object.spec : {};
  if (spec.token !== undefined && spec.token !== null) {
    if (typeof spec.token !== "string") {
      throw badRequest(
        `json: cannot unmarshal ${
          jsonType(spec.token)
        } into Go struct field TokenReviewSpec.spec.token of type string`,
      );
    }
  }
  const token = typeof spec.token === "string" ? spec.token : "";
  const audiences = Array.isArray(spec.audiences)
    ? spec.audiences.filter((a): a is string => typeof a === "string")
    : [];
  return { token, audiences };
}

function answerReview(state: State, object: KubeObject): Response {
  const spec = readSpec(object);
  if (spec.token === "") {
    throw badRequest("token is required for TokenReview in authentication");
  }
  const wanted = spec.audiences.length > 0 ? spec.audiences : API_AUDIENCES;
  const outcome = review(state, spec.token, wanted);
  const status = outcome.authenticated
    ? {
      authenticated: true,
      user: {
        username:
          `system:serviceaccount:${outcome.issued.namespace}:${outcome.issued.name}`,
        uid: outcome.issued.uid,
        groups: [
          "system:serviceaccounts",
          `system:serviceaccounts:${outcome.issued.namespace}`,
          "system:authenticated",
        ],
        extra: {
          "authentication.kubernetes.io/credential-id": [
            `JTI=${outcome.issued.id}`,
          ],
        },
      },
      audiences: outcome.audiences,
    }
    : { user: {}, error: outcome.error };
  return json({
    kind: "TokenReview",
    apiVersion: "authentication.k8s.io/v1",
    metadata: { ...object.metadata, creationTimestamp: null },
    spec: object.spec ?? {},
    status,
  }, 201);
}

export const TOKEN_REVIEW: ResourceType = {
  group: "authentication.k8s.io",
  version: "v1",
  kind: "TokenReview",
  plural: "tokenreviews",
  singular: "tokenreview",
  namespaced: false,
  verbs: ["create"],
  answerCreate: answerReview,
};
