/**
 * Compiles the google.api.http rules of the API definition into routes, once,
 * at start-up. A rule this gateway cannot serve fails start-up, naming it.
 */
import type protobuf from "protobufjs";
import { methodKey } from "../schema.ts";

const VERBS = ["get", "put", "post", "delete", "patch"] as const;
export type Verb = Uppercase<typeof VERBS[number]>;

export type Segment =
  | { literal: string }
  | { variable: string /* request field name, camelCase */ };

export interface Route {
  verb: Verb;
  /** The rule's path template as written, e.g. /apis/v1/namespaces/{namespace}/compute_templates */
  template: string;
  segments: Segment[];
  /** "" (no body), "*" (the whole request) or a request field (camelCase). */
  body: string;
  method: protobuf.Method;
  /** "proto.ClusterService/CreateCluster" */
  key: string;
  requestType: protobuf.Type;
  responseType: protobuf.Type;
  /** The method answers a stream (server streaming). */
  streaming: boolean;
}

interface HttpRule {
  get?: string;
  put?: string;
  post?: string;
  delete?: string;
  patch?: string;
  body?: string;
  additional_bindings?: HttpRule | HttpRule[];
}

/** Every route of the services' http rules, in definition order. */
export function compileRoutes(services: protobuf.Service[]): Route[] {
  const routes: Route[] = [];
  for (const service of services) {
    for (const method of service.methodsArray) {
      method.resolve();
      for (const rule of httpRules(method)) {
        routes.push(compileRule(method, rule));
      }
    }
  }
  const seen = new Set<string>();
  for (const route of routes) {
    const shape = `${route.verb} ${
      route.segments.map((s) => "literal" in s ? s.literal : "*").join("/")
    }`;
    if (seen.has(shape)) {
      throw new Error(
        `Cannot compile http rule of ${route.key}: ${route.verb} ${route.template} is bound twice`,
      );
    }
    seen.add(shape);
  }
  return routes;
}

function httpRules(method: protobuf.Method): HttpRule[] {
  const rules: HttpRule[] = [];
  for (const option of method.parsedOptions ?? []) {
    const rule = (option as Record<string, HttpRule>)["(google.api.http)"];
    if (!rule) continue;
    rules.push(rule);
    const extra = rule.additional_bindings;
    if (extra) rules.push(...(Array.isArray(extra) ? extra : [extra]));
  }
  return rules;
}

function compileRule(method: protobuf.Method, rule: HttpRule): Route {
  const key = methodKey(method);
  const fail = (why: string): never => {
    throw new Error(`Cannot compile http rule of ${key}: ${why}`);
  };
  const verbs = VERBS.filter((v) => typeof rule[v] === "string");
  if (verbs.length !== 1) {
    fail("it must name exactly one of get, put, post, delete, patch");
  }
  const verb = verbs[0];
  const template = rule[verb] as string;
  const requestType = method.resolvedRequestType!;
  const responseType = method.resolvedResponseType!;
  if (!template.startsWith("/")) fail(`path ${template} must start with "/"`);
  const segments: Segment[] = template.slice(1).split("/").map((part) => {
    const variable = /^\{([a-z_][a-z0-9_]*)\}$/.exec(part);
    if (variable) {
      const field = requestType.fieldsArray.find((f) =>
        f.protoName === variable[1] || f.name === variable[1]
      );
      if (!field || field.type !== "string" || field.repeated || field.map) {
        fail(
          `path variable {${
            variable[1]
          }} must name a string field of ${requestType.name}`,
        );
      }
      return { variable: field!.name };
    }
    if (part === "" || /[{}*:]/.test(part)) {
      fail(
        `path segment "${part}" of ${template} is not supported (only literals and {field})`,
      );
    }
    return { literal: part };
  });
  let body = "";
  if (rule.body === "*") body = "*";
  else if (rule.body) {
    const field = requestType.fieldsArray.find((f) =>
      f.protoName === rule.body || f.name === rule.body
    );
    if (!field) {
      fail(`body "${rule.body}" is not a field of ${requestType.name}`);
    }
    body = field!.name;
  }
  if (body && verb === "get") fail("a GET rule cannot take a body");
  return {
    verb: verb.toUpperCase() as Verb,
    template,
    segments,
    body,
    method,
    key,
    requestType,
    responseType,
    streaming: method.responseStream === true,
  };
}

/** Matches a path against a route; the path variables' values, or undefined. */
export function matchRoute(
  route: Route,
  parts: string[],
): Record<string, string> | undefined {
  if (parts.length !== route.segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const segment = route.segments[i];
    if ("literal" in segment) {
      if (segment.literal !== parts[i]) return undefined;
    } else {
      params[segment.variable] = parts[i];
    }
  }
  return params;
}
