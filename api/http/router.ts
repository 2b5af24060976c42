/**
 * The HTTP server's handler: Corral's own pages (OpenAPI document, docs,
 * health, metrics) by exact path, everything else to the gateway. Pure, like
 * the gateway: `(Request) => Promise<Response>`.
 */
import { Code, ServiceError } from "../../domain/errors.ts";
import { errorBody } from "../errors.ts";
import type { Gateway } from "./gateway.ts";

export type PageHandler = (request: Request) => Response | Promise<Response>;

export interface HttpAppOptions {
  gateway: Gateway;
  /** Handlers of GET (and HEAD) requests by exact path, e.g. "/openapi.json". */
  pages?: Record<string, PageHandler>;
}

export function createHttpApp(
  options: HttpAppOptions,
): (request: Request) => Promise<Response> {
  const pages = new Map(Object.entries(options.pages ?? {}));
  return async (request) => {
    const page = pages.get(new URL(request.url).pathname);
    if (!page) return await options.gateway(request);
    if (request.method === "GET" || request.method === "HEAD") {
      return await page(request);
    }
    return Response.json(
      errorBody(new ServiceError(Code.UNIMPLEMENTED, "Method Not Allowed")),
      { status: 405, headers: { allow: "GET, HEAD" } },
    );
  };
}
