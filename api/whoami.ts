/**
 * GET /apis/v1alpha2/whoami: who Corral takes the caller to be, as the
 * Kubernetes API server's SelfSubjectReview answers it: `{ user, groups }`
 * as the chain authenticated the call (a token, a client certificate, or
 * system:anonymous where anonymous callers are allowed). A failed
 * authentication is the API's 401 body.
 *
 * HTTP only, as a unit beside the RPCs rather than one of them
 * (api/http/units.ts): it asks about the request's own credentials, which
 * a gRPC client already holds, and the console (a browser) is what needs
 * it, to say who is signed in and to fill in a cluster's owner. It has no
 * row in the policy: anyone who authenticates may learn their own
 * identity, and nothing else. Like every call it is rate limited, counted
 * and logged, and a refusal is audited.
 */
import type { HttpUnit } from "./http/units.ts";
import { exactPath } from "./http/router.ts";

/** The page's path. */
export const WHOAMI_PATH = "/apis/v1alpha2/whoami";

/** What the page answers. */
export interface WhoAmI {
  user: string;
  groups: string[];
}

/** The unit: the caller's user and groups. */
export function whoamiUnit(): HttpUnit {
  return {
    key: "corral.Identity/WhoAmI",
    methods: ["GET"],
    path: WHOAMI_PATH,
    ...exactPath(WHOAMI_PATH),
    check: "authentication",
    handle: (_request, _params, call) => {
      const { user, groups } = call.caller.identity;
      const answer: WhoAmI = { user, groups };
      // An identity is the caller's own: no shared cache may keep it.
      return Promise.resolve(
        Response.json(answer, { headers: { "cache-control": "no-store" } }),
      );
    },
  };
}
