/**
 * GET /apis/v1alpha2/whoami: who Corral takes the caller to be, as the
 * Kubernetes API server's SelfSubjectReview answers it: `{ user, groups }`
 * from the same authentication chain every call goes through (a token, a
 * client certificate, or system:anonymous where anonymous callers are
 * allowed). A failed authentication is the API's 401 body.
 *
 * HTTP only, as a page beside /version rather than an RPC: it asks about
 * the request's own credentials, which a gRPC client already holds, and the
 * console (a browser) is what needs it, to say who is signed in and to
 * fill in a cluster's owner. Being no RPC it is not authorized by the
 * policy: anyone who authenticates may learn their own identity, and
 * nothing else.
 */
import { Code, ServiceError } from "../domain/errors.ts";
import type { Access } from "./auth/access.ts";
import { credentialsOf } from "./auth/authenticate.ts";
import { errorResponse } from "./http/error_answers.ts";
import type { HttpRequest } from "./http/http_request.ts";

/** The page's path. */
export const WHOAMI_PATH = "/apis/v1alpha2/whoami";

/** What the page answers. */
export interface WhoAmI {
  user: string;
  groups: string[];
}

/** The page: the caller's user and groups, or the API's 401. */
export function whoamiPage(
  access: Access,
): (request: HttpRequest) => Promise<Response> {
  return async (request) => {
    const peer = request.peer;
    try {
      const identity = await access.authenticator.authenticate(
        credentialsOf(
          request.headers.get("authorization"),
          peer?.certificate,
          peer?.address,
        ),
        request.signal,
      );
      const answer: WhoAmI = {
        user: identity.user,
        groups: identity.groups,
      };
      // An identity is the caller's own: no shared cache may keep it.
      return Response.json(answer, {
        headers: { "cache-control": "no-store" },
      });
    } catch (thrown) {
      const error = thrown instanceof ServiceError
        ? thrown
        : new ServiceError(Code.UNAUTHENTICATED, "Unauthorized");
      return errorResponse(error);
    }
  };
}
