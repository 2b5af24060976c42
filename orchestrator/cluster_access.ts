/**
 * How Corral reaches a service inside a cluster, the Ray dashboard on a
 * head service (--cluster-access):
 *
 *   direct           http://<service>.<namespace>.svc:<port>, for a Corral
 *                    that runs in the Kubernetes cluster, where those names
 *                    resolve;
 *   apiserver-proxy  the Kubernetes API server's service proxy,
 *                    <server>/api/v1/namespaces/<namespace>/services/
 *                    <service>:<port>/proxy/..., with Corral's own
 *                    Kubernetes credentials (RBAC: services/proxy, get and
 *                    create), from anywhere Corral reaches the API.
 *
 * The API server authenticates the request and drops its Authorization
 * header before it proxies (kube-apiserver's authentication filter), so
 * Corral's credentials never reach the dashboard either way.
 *
 * Both give a base URL (where the service's "/" is) and a fetch for URLs
 * under it; what is sent is the caller's to decide (dashboard_proxy.ts).
 * For bytes that are not HTTP (the Ray client's, client_tunnel.ts), both
 * give a TCP connection to a head's port: direct to the head service, and
 * through the API server by its port forwarding to the running head pod
 * (port_forward.ts; RBAC: pods list, pods/portforward get and create),
 * since its service proxy carries HTTP only.
 * The interface is the domain's (domain/dashboard_ports.ts): the API names
 * it, and never this module.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import type {
  ClusterAccess,
  HeadPort,
  ServicePort,
} from "../domain/dashboard_ports.ts";
import { Code, ServiceError } from "../domain/errors.ts";
import { portForward } from "./port_forward.ts";
import { connect as netConnect, isIP } from "node:net";
import { connect as tlsConnect } from "node:tls";
import type { Duplex } from "node:stream";

/** TLS settings of a dial to an https URL. */
interface TlsOptions {
  ca?: string;
  cert?: string;
  key?: string;
  /** False only for a kubeconfig's insecure-skip-tls-verify. */
  rejectUnauthorized: boolean;
}

/** A TCP (http) or TLS (https) connection to `url`'s host and port. */
export function dialUrl(
  url: string,
  signal: AbortSignal,
  tls: TlsOptions = { rejectUnauthorized: true },
): Promise<Duplex> {
  const target = new URL(url);
  const secure = target.protocol === "https:";
  const host = target.hostname.replace(/^\[|\]$/g, "");
  const port = Number(target.port) || (secure ? 443 : 80);
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const socket = secure
      ? tlsConnect({
        host,
        port,
        ...(isIP(host) ? {} : { servername: host }),
        ...(tls.ca !== undefined ? { ca: tls.ca } : {}),
        ...(tls.cert !== undefined ? { cert: tls.cert, key: tls.key } : {}),
        rejectUnauthorized: tls.rejectUnauthorized,
      })
      : netConnect({ host, port });
    const settle = (error?: Error) => {
      signal.removeEventListener("abort", aborted);
      socket.off("error", settle);
      if (error) {
        socket.destroy();
        reject(error);
      } else resolve(socket);
    };
    const aborted = () => settle(signal.reason);
    signal.addEventListener("abort", aborted, { once: true });
    socket.once(secure ? "secureConnect" : "connect", () => settle());
    socket.once("error", settle);
  });
}

/**
 * Straight to the service's cluster DNS name. `baseUrlOf` replaces the
 * name, for tests that play the service on a local port.
 */
export function directAccess(
  options: { baseUrlOf?: (service: ServicePort) => string } = {},
): ClusterAccess {
  const baseUrl = options.baseUrlOf ??
    ((service: ServicePort) =>
      `http://${service.name}.${service.namespace}.svc:${service.port}`);
  return {
    mode: "direct",
    baseUrl,
    fetch: (url, init) => fetch(url, { ...init, redirect: "manual" }),
    dial: async (url, signal) => ({
      socket: await dialUrl(url, signal),
      headers: {},
    }),
    connect: (target, signal) =>
      dialUrl(
        `${
          baseUrl({
            namespace: target.namespace,
            name: target.service,
            port: target.port,
          })
        }/`,
        signal,
      ),
    close() {},
  };
}

/** Through the API server of `kubeConfig`'s current context. */
export function apiserverProxyAccess(kubeConfig: KubeConfig): ClusterAccess {
  const credentials = new KubeCredentials(kubeConfig);
  return {
    mode: "apiserver-proxy",
    baseUrl(service) {
      const server = kubeConfig.getCurrentCluster()?.server;
      if (!server) throw new Error("The kubeconfig has no current cluster");
      const { namespace, name, port } = service;
      return `${server.replace(/\/$/, "")}/api/v1/namespaces/${namespace}` +
        `/services/${name}:${port}/proxy`;
    },
    async fetch(url, init) {
      const { headers, client } = await credentials.current();
      const sent = new Headers(init.headers);
      for (const [name, value] of Object.entries(headers)) {
        sent.set(name, value);
      }
      return await fetch(url, {
        ...init,
        headers: sent,
        redirect: "manual",
        ...(client ? { client } : {}),
      } as RequestInit);
    },
    async dial(url, signal) {
      const { headers, tls } = await credentials.current();
      const skip = kubeConfig.getCurrentCluster()?.skipTLSVerify === true;
      return {
        socket: await dialUrl(url, signal, {
          ...tls,
          rejectUnauthorized: !skip,
        }),
        headers,
      };
    },
    async connect(target, signal) {
      const server = serverOf(kubeConfig);
      const { headers, client, tls } = await credentials.current();
      const pod = await runningHeadPod(server, target, {
        headers,
        client,
        signal,
      });
      const skip = kubeConfig.getCurrentCluster()?.skipTLSVerify === true;
      return await portForward({
        url: `${server}/api/v1/namespaces/${target.namespace}/pods/${pod}` +
          `/portforward?ports=${target.port}`,
        headers,
        tls: { ...tls, rejectUnauthorized: !skip },
        signal,
      });
    },
    close: () => credentials.close(),
  };
}

/** The current cluster's server URL, without a final "/". */
function serverOf(kubeConfig: KubeConfig): string {
  const server = kubeConfig.getCurrentCluster()?.server;
  if (!server) throw new Error("The kubeconfig has no current cluster");
  return server.replace(/\/$/, "");
}

/**
 * The name of the cluster's running head pod (labelled as KubeRay labels
 * it); UNAVAILABLE when it has none.
 */
async function runningHeadPod(
  server: string,
  target: HeadPort,
  how: {
    headers: Record<string, string>;
    client?: Deno.HttpClient;
    signal: AbortSignal;
  },
): Promise<string> {
  const selector = `ray.io/cluster=${target.cluster},ray.io/node-type=head`;
  const answer = await fetch(
    `${server}/api/v1/namespaces/${target.namespace}/pods?labelSelector=${
      encodeURIComponent(selector)
    }`,
    {
      headers: { ...how.headers, accept: "application/json" },
      signal: how.signal,
      ...(how.client ? { client: how.client } : {}),
    } as RequestInit,
  );
  if (!answer.ok) {
    await answer.body?.cancel();
    throw new Error(
      `the API server answered the head pod's list ${answer.status}`,
    );
  }
  const list = await answer.json() as {
    items?: {
      metadata?: { name?: string; deletionTimestamp?: string };
      status?: { phase?: string };
    }[];
  };
  const running = (list.items ?? []).find((pod) =>
    pod.status?.phase === "Running" && !pod.metadata?.deletionTimestamp
  );
  if (!running?.metadata?.name) {
    throw new ServiceError(
      Code.UNAVAILABLE,
      "the cluster has no running head pod to forward a port to",
    );
  }
  return running.metadata.name;
}

/**
 * The kubeconfig's credentials as fetch takes them: headers (a bearer
 * token, refreshed by client-node for exec and service-account tokens) and
 * an HTTP client with the CA and client certificate, made again only when
 * they change.
 */
class KubeCredentials {
  #client: Deno.HttpClient | undefined;
  #clientFor = "";

  constructor(private readonly kubeConfig: KubeConfig) {}

  async current(): Promise<
    {
      headers: Record<string, string>;
      client?: Deno.HttpClient;
      /** The same CA and client certificate, for a raw TLS dial. */
      tls: { ca?: string; cert?: string; key?: string };
    }
  > {
    const options: {
      headers?: Record<string, string>;
      ca?: unknown;
      cert?: unknown;
      key?: unknown;
    } = {};
    await this.kubeConfig.applyToHTTPSOptions(options as never);
    const pem = (value: unknown) =>
      value === undefined ? undefined : String(value);
    const [ca, cert, key] = [
      pem(options.ca),
      pem(options.cert),
      pem(options.key),
    ];
    if (ca !== undefined || cert !== undefined) {
      const identity = `${ca}\0${cert}\0${key}`;
      if (identity !== this.#clientFor) {
        this.#client?.close();
        this.#client = Deno.createHttpClient({
          ...(ca === undefined ? {} : { caCerts: [ca] }),
          ...(cert !== undefined && key !== undefined ? { cert, key } : {}),
        });
        this.#clientFor = identity;
      }
    }
    return {
      headers: options.headers ?? {},
      ...(this.#client ? { client: this.#client } : {}),
      tls: {
        ...(ca !== undefined ? { ca } : {}),
        ...(cert !== undefined && key !== undefined ? { cert, key } : {}),
      },
    };
  }

  close(): void {
    this.#client?.close();
    this.#client = undefined;
  }
}
