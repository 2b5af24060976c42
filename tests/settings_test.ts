import assert from "node:assert/strict";
import {
  bytes,
  duration,
  ENVIRONMENT,
  type Invocation,
  parseSettings,
  type Settings,
} from "../settings.ts";

/**
 * parseSettings() with --allow-anonymous: kubernetes mode refuses to start
 * without an authenticator, which most tests here are not about.
 */
function parse(args: string[], env: Record<string, string>): Invocation {
  return parseSettings(["--allow-anonymous", ...args], env);
}

function settingsOf(invocation: Invocation): Settings {
  assert.equal(invocation.kind, "run", JSON.stringify(invocation));
  return (invocation as { settings: Settings }).settings;
}

function problemsOf(invocation: Invocation): string[] {
  assert.equal(invocation.kind, "invalid", JSON.stringify(invocation));
  return (invocation as { problems: string[] }).problems;
}

Deno.test("parseSettings() picks --cluster-access by where Corral runs, or as asked", () => {
  const access = (args: string[]) =>
    settingsOf(parse(args, {})).dashboardProxy.clusterAccess;
  assert.equal(access([]), "direct");
  assert.equal(access(["--kubeconfig", "/k"]), "apiserver-proxy");
  assert.equal(access(["--orchestrator", "embedded"]), "apiserver-proxy");
  assert.equal(
    access(["--kubeconfig", "/k", "--cluster-access", "direct"]),
    "direct",
  );
  assert.deepEqual(problemsOf(parse(["--cluster-access", "tunnel"], {})), [
    '--cluster-access must be one of direct, apiserver-proxy, got "tunnel"',
  ]);
});

Deno.test("parseSettings() gives kubernetes mode's defaults without flags", () => {
  assert.deepEqual(settingsOf(parse([], {})), {
    host: "0.0.0.0",
    browsers: { allowedHosts: ["*"], corsAllowedOrigins: [] },
    httpPort: 8888,
    grpcPort: 8887,
    orchestrator: "kubernetes",
    kubeconfig: "",
    writeKubeconfig: "",
    operatorDelayMs: 2000,
    crds: [],
    cluster: { group: "ray.io", version: "v1", plural: "rayclusters" },
    namespaces: [],
    kuberayJson: false,
    maxBodyBytes: 3 * 1024 * 1024,
    limits: {
      maxReplicas: 1_000,
      maxWorkerGroups: 20,
      maxTemplateCpu: 1_024,
      maxTemplateMemory: 16_384,
      maxTemplateGpu: 64,
      maxMapEntries: 100,
    },
    kubeTimeoutMs: 10_000,
    headerTimeoutMs: 10_000,
    idleTimeoutMs: 60_000,
    bodyTimeoutMs: 30_000,
    cache: true,
    cacheStaleAfterMs: 30_000,
    cacheMissQps: 20,
    cacheBookmarkIntervalMs: 60_000,
    watchMaxDurationMs: 30 * 60_000,
    fairUse: {
      rate: { perSecond: 50, burst: 100 },
      maxStreams: 20,
      anonymous: false,
    },
    dashboardProxy: {
      // No kubeconfig in kubernetes mode: in a pod.
      clusterAccess: "direct",
      timeoutMs: 30_000,
      maxRequestBytes: 64 * 1024 * 1024,
      maxResponseBytes: 64 * 1024 * 1024,
      sessionTtlMs: 15 * 60_000,
      sessionKeyFile: "",
    },
    expiry: {
      warningMs: 3_600_000,
      intervalMs: 5_000,
      leaderElect: true,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      leaseNamespace: "",
      identity: "",
    },
    requestTimeoutMs: 60_000,
    maxInflightBodyBytes: 64 * 1024 * 1024,
    shutdownDelayMs: 10_000,
    shutdownGraceMs: 20_000,
    logLevel: "info",
    logFormat: "auto",
    auth: {
      tokenAuthFile: "",
      tokenReview: false,
      anonymous: true,
      policyFile: "",
      ownNamespace: "",
      auditLogPath: "",
      metricsRequireAuth: false,
      failureLimit: { perSecond: 10, burst: 20 },
    },
  });
});

Deno.test("parseSettings() has no shutdown delay in embedded mode unless told", () => {
  const embedded = ["--orchestrator", "embedded"];
  assert.equal(settingsOf(parse(embedded, {})).shutdownDelayMs, 0);
  assert.equal(
    settingsOf(parse([...embedded, "--shutdown-delay", "3s"], {}))
      .shutdownDelayMs,
    3000,
  );
  assert.equal(
    settingsOf(parse([], { CORRAL_ORCHESTRATOR: "embedded" }))
      .shutdownDelayMs,
    0,
  );
});

Deno.test("parseSettings() takes flags over the environment over defaults", () => {
  const env = { CORRAL_HTTP_PORT: "9000", CORRAL_GRPC_PORT: "9001" };
  const settings = settingsOf(parse(["--http-port", "9100"], env));
  assert.equal(settings.httpPort, 9100);
  assert.equal(settings.grpcPort, 9001);
});

Deno.test("parseSettings() reads every flag in both forms and ignores a bare --", () => {
  const settings = settingsOf(parse([
    "--",
    "--host=127.0.0.1",
    "--orchestrator",
    "embedded",
    "--crd",
    "a.yaml",
    "--crd=b.yaml",
    "--namespaces",
    " team-a, team-b ,",
    "--cluster-group",
    "example.com",
    "--max-body-bytes",
    "512Ki",
    "--kube-timeout",
    "1m30s",
    "--log-level",
    "debug",
    "--cache-miss-qps",
    "0",
    "--watch-max-duration=45m",
  ], {}));
  assert.equal(settings.host, "127.0.0.1");
  assert.equal(settings.orchestrator, "embedded");
  assert.deepEqual(settings.crds, ["a.yaml", "b.yaml"]);
  assert.deepEqual(settings.namespaces, ["team-a", "team-b"]);
  assert.equal(settings.cluster.group, "example.com");
  assert.equal(settings.maxBodyBytes, 512 * 1024);
  assert.equal(settings.kubeTimeoutMs, 90_000);
  assert.equal(settings.logLevel, "debug");
  assert.equal(settings.cacheMissQps, 0);
  assert.equal(settings.watchMaxDurationMs, 45 * 60_000);
});

Deno.test("parseSettings() reads --kuberay-json from the flag or the environment", () => {
  assert.equal(settingsOf(parse(["--kuberay-json"], {})).kuberayJson, true);
  assert.equal(
    settingsOf(parse([], { CORRAL_KUBERAY_JSON: "true" })).kuberayJson,
    true,
  );
  assert.equal(
    settingsOf(parse(["--kuberay-json=false"], { CORRAL_KUBERAY_JSON: "1" }))
      .kuberayJson,
    false,
  );
  assert.deepEqual(problemsOf(parse(["--kuberay-json=maybe"], {})), [
    '--kuberay-json must be true or false, got "maybe"',
  ]);
});

Deno.test("parseSettings() reads the limits from flags and the environment", () => {
  const settings = settingsOf(parse([
    "--max-replicas",
    "5000",
    "--max-worker-groups=40",
    "--max-template-cpu",
    "2048",
    "--max-template-memory",
    "32768",
    "--max-template-gpu",
    "0",
  ], { CORRAL_MAX_MAP_ENTRIES: "250" }));
  assert.deepEqual(settings.limits, {
    maxReplicas: 5000,
    maxWorkerGroups: 40,
    maxTemplateCpu: 2048,
    maxTemplateMemory: 32768,
    maxTemplateGpu: 0,
    maxMapEntries: 250,
  });
});

Deno.test("parseSettings() refuses every bad limit at once", () => {
  const problems = problemsOf(parse([
    "--max-replicas",
    "0",
    "--max-worker-groups",
    "1e3",
    "--max-template-cpu",
    "-1",
    "--max-template-memory",
    "2147483648",
    "--max-template-gpu",
    "many",
  ], { CORRAL_MAX_MAP_ENTRIES: "" }));
  assert.deepEqual(problems, [
    '--max-replicas must be a whole number from 1 to 2147483647, got "0"',
    '--max-worker-groups must be a whole number from 1 to 2147483647, got "1e3"',
    '--max-template-cpu must be a whole number from 1 to 2147483647, got "-1"',
    '--max-template-memory must be a whole number from 1 to 2147483647, got "2147483648"',
    '--max-template-gpu must be a whole number from 0 to 2147483647, got "many"',
    '--max-map-entries (from CORRAL_MAX_MAP_ENTRIES) must be a whole number from 1 to 2147483647, got ""',
  ]);
});

Deno.test("parseSettings() names the variable an auth setting's bad value came from", () => {
  assert.deepEqual(
    problemsOf(parse([], {
      CORRAL_AUTH_FAILURE_RATE: "fast",
      CORRAL_METRICS_REQUIRE_AUTH: "maybe",
    })),
    [
      '--metrics-require-auth (from CORRAL_METRICS_REQUIRE_AUTH) must be true or false, got "maybe"',
      '--auth-failure-rate (from CORRAL_AUTH_FAILURE_RATE) must be a whole number from 0 to 2147483647, got "fast"',
    ],
  );
});

Deno.test("parseSettings() checks --own-namespace is a namespace name, and allows none", () => {
  assert.equal(
    settingsOf(parse(["--own-namespace", "corral-system"], {})).auth
      .ownNamespace,
    "corral-system",
  );
  assert.equal(settingsOf(parse([], {})).auth.ownNamespace, "");
  const [problem, ...more] = problemsOf(
    parse(["--own-namespace", "Not_A/Namespace"], {}),
  );
  assert.deepEqual(more, []);
  assert.match(
    problem,
    /^--own-namespace has an invalid namespace "Not_A\/Namespace"/,
  );
});

Deno.test("parseSettings() reads a repeatable flag's variable as a comma list", () => {
  const settings = settingsOf(
    parse(["--orchestrator=embedded"], {
      CORRAL_CRDS: "a.yaml,b.yaml",
    }),
  );
  assert.deepEqual(settings.crds, ["a.yaml", "b.yaml"]);
});

Deno.test("parseSettings() reports every problem at once", () => {
  const problems = problemsOf(parse([
    "--kube-timout",
    "10s",
    "--http-port",
    "99999",
    "--orchestrator",
    "cloud",
    "stray",
  ], { CORRAL_IDLE_TIMEOUT: "soon" }));
  assert.deepEqual(problems, [
    "Unknown flag --kube-timout: did you mean --kube-timeout?",
    'Unexpected argument "stray": flags start with --',
    '--http-port must be a port from 0 to 65535, got "99999"',
    '--orchestrator must be one of kubernetes, embedded, got "cloud"',
    '--idle-timeout (from CORRAL_IDLE_TIMEOUT) must be a duration such as 500ms, 10s or 1m30s, got "soon"',
  ]);
});

Deno.test("parseSettings() refuses bad values, naming the flag", async (t) => {
  const cases: [string[], RegExp][] = [
    [["--kube-timeout", "10"], /^--kube-timeout needs a unit: "10s" or "10ms"/],
    [["--kube-timeout", "0s"], /^--kube-timeout must be more than 0/],
    [["--shutdown-grace", "-1s"], /^--shutdown-grace must be a duration/],
    [["--watch-max-duration", "30"], /^--watch-max-duration needs a unit/],
    [
      ["--watch-max-duration", "0"],
      /^--watch-max-duration must be more than 0/,
    ],
    [["--cache-miss-qps", "-1"], /^--cache-miss-qps must be a whole number/],
    [["--cache-miss-qps", "2.5"], /^--cache-miss-qps must be a whole number/],
    [["--cache-miss-qps", "many"], /^--cache-miss-qps must be a whole number/],
    [["--max-body-bytes", "3MB"], /^--max-body-bytes must be a size/],
    [["--max-body-bytes", "0"], /^--max-body-bytes must be a size/],
    [["--grpc-port", "1.5"], /^--grpc-port must be a port/],
    [["--grpc-port", ""], /^--grpc-port must be a port/],
    [["--log-level", "verbose"], /^--log-level must be one of debug, info/],
    [
      ["--namespaces", "team-a,Team_B"],
      /^--namespaces has an invalid namespace "Team_B"/,
    ],
    [["--cluster-plural", " "], /^--cluster-plural must not be empty/],
    [["--host"], /^--host needs a value \(ADDRESS\)/],
    [["--helo"], /^Unknown flag --helo: did you mean --help\?/],
    [["--zzzzzzzz"], /^Unknown flag --zzzzzzzz$/],
  ];
  for (const [args, want] of cases) {
    await t.step(args.join(" ") || "(empty)", () => {
      const problems = problemsOf(parse(args, {}));
      assert.equal(problems.length, 1, problems.join("\n"));
      assert.match(problems[0], want);
    });
  }
});

Deno.test("parseSettings() warns of embedded-only flags in kubernetes mode", () => {
  const invocation = parse(["--crd", "a.yaml"], {});
  assert.equal(invocation.kind, "run");
  assert.deepEqual((invocation as { warnings: string[] }).warnings, [
    "Ignored --crd: it applies to embedded mode only",
    "Serving requests without credentials as system:anonymous (--allow-anonymous)",
  ]);
});

Deno.test("parseSettings() answers --help and --version before checking values", () => {
  assert.equal(
    parse(["--version", "--http-port", "x"], {}).kind,
    "version",
  );
  const help = parse(["--help", "--http-port", "x"], {});
  assert.equal(help.kind, "help");
});

Deno.test("--help names every flag, its variable and default", () => {
  const help = parse(["--help"], {});
  assert.equal(help.kind, "help");
  const text = (help as { text: string }).text;
  for (const name of ENVIRONMENT) {
    assert.ok(text.includes(`env ${name}`), `help lacks ${name}:\n${text}`);
  }
  for (const want of ["--http-port PORT", "default 8888", "--version"]) {
    assert.ok(text.includes(want), `help lacks ${want}:\n${text}`);
  }
});

Deno.test("--help under deno task dev's flags shows the values dev mode runs with", () => {
  const help = parse(
    ["--orchestrator", "embedded", "--host", "127.0.0.1", "--help"],
    { CORRAL_HTTP_PORT: "9999" },
  );
  const text = (help as { text: string }).text;
  const line = (flag: string) => {
    const lines = text.split("\n");
    return lines[lines.findIndex((l) => l.includes(`--${flag} `)) + 1];
  };
  assert.match(line("orchestrator"), /now embedded \(--orchestrator\)/);
  assert.match(line("host"), /default 0\.0\.0\.0, now 127\.0\.0\.1 \(--host\)/);
  assert.match(line("http-port"), /now 9999 \(CORRAL_HTTP_PORT\)/);
  assert.match(
    line("shutdown-delay"),
    /default 10s, 0s in embedded mode, now 0s \(embedded mode\)/,
  );
  assert.doesNotMatch(line("grpc-port"), /now/);
});

Deno.test("duration() reads Go-style durations and refuses bare numbers", async (t) => {
  const cases: [string, number | RegExp][] = [
    ["0", 0],
    ["500ms", 500],
    ["2s", 2000],
    ["1.5s", 1500],
    ["1m30s", 90_000],
    ["1h", 3_600_000],
    ["10", /needs a unit/],
    ["2.5", /needs a unit/],
    ["s", /must be a duration/],
    ["2d", /must be a duration/],
    ["2s junk", /must be a duration/],
    ["", /must be a duration/],
  ];
  for (const [text, want] of cases) {
    await t.step(JSON.stringify(text), () => {
      if (typeof want === "number") assert.equal(duration(text), want);
      else assert.throws(() => duration(text), want);
    });
  }
});

Deno.test("bytes() reads Kubernetes binary suffixes", () => {
  assert.equal(bytes("1048576"), 1048576);
  assert.equal(bytes("512Ki"), 512 * 1024);
  assert.equal(bytes("3Mi"), 3 * 1024 * 1024);
  assert.equal(bytes("1Gi"), 1024 ** 3);
  assert.throws(() => bytes("1G"), /must be a size/);
});

Deno.test("parseSettings() serves TLS with both files, and a client CA with them", () => {
  assert.equal(settingsOf(parse([], {})).tls, undefined);
  assert.deepEqual(
    settingsOf(parse([
      "--tls-cert-file",
      "/tls/tls.crt",
      "--tls-private-key-file=/tls/tls.key",
    ], {})).tls,
    { certFile: "/tls/tls.crt", keyFile: "/tls/tls.key" },
  );
  assert.deepEqual(
    settingsOf(parse([], {
      CORRAL_TLS_CERT_FILE: "/tls/tls.crt",
      CORRAL_TLS_PRIVATE_KEY_FILE: "/tls/tls.key",
      CORRAL_CLIENT_CA_FILE: "/ca/ca.crt",
    })).tls,
    {
      certFile: "/tls/tls.crt",
      keyFile: "/tls/tls.key",
      clientCaFile: "/ca/ca.crt",
    },
  );
});

Deno.test("parseSettings() refuses one TLS file without the other, and a client CA without TLS", async (t) => {
  const cases: [string, string[], Record<string, string>, string][] = [
    [
      "a certificate without a key",
      ["--tls-cert-file", "/tls/tls.crt"],
      {},
      "--tls-cert-file needs --tls-private-key-file",
    ],
    [
      "a key without a certificate",
      [],
      { CORRAL_TLS_PRIVATE_KEY_FILE: "/tls/tls.key" },
      "--tls-private-key-file needs --tls-cert-file",
    ],
    [
      "a client CA without TLS",
      ["--client-ca-file", "/ca/ca.crt"],
      {},
      "--client-ca-file needs --tls-cert-file and --tls-private-key-file: client certificates are only sent over TLS",
    ],
    [
      "an empty key",
      ["--tls-cert-file", "/tls/tls.crt", "--tls-private-key-file", " "],
      {},
      "--tls-cert-file needs --tls-private-key-file",
    ],
  ];
  for (const [name, args, env, want] of cases) {
    await t.step(name, () => {
      assert.deepEqual(problemsOf(parse(args, env)), [want]);
    });
  }
});

Deno.test("parseSettings() reports TLS problems with every other problem at once", () => {
  const problems = problemsOf(
    parse(["--client-ca-file", "/ca/ca.crt", "--http-port", "x"], {}),
  );
  assert.equal(problems.length, 2, problems.join("\n"));
});

Deno.test("parseSettings() reads no file: missing TLS files are main.ts's to find", () => {
  const settings = settingsOf(parse([
    "--tls-cert-file=/nonexistent/tls.crt",
    "--tls-private-key-file=/nonexistent/tls.key",
    "--client-ca-file=/nonexistent/ca.crt",
  ], {}));
  assert.equal(settings.tls?.certFile, "/nonexistent/tls.crt");
});

Deno.test("parseSettings() refuses kubernetes mode without an authenticator, saying how to configure one", () => {
  const problems = problemsOf(parseSettings([], {}));
  assert.deepEqual(problems, [
    "Kubernetes mode needs an authenticator: --token-auth-file, --oidc-issuer-url, --authentication-token-review or --client-ca-file; or --allow-anonymous to serve every caller as system:anonymous",
  ]);
});

Deno.test("parseSettings() serves anonymous callers in embedded mode only without an authenticator", () => {
  const embedded = ["--orchestrator", "embedded"];
  assert.equal(settingsOf(parseSettings(embedded, {})).auth.anonymous, true);
  const withTokens = [...embedded, "--token-auth-file", "tokens.csv"];
  assert.equal(settingsOf(parseSettings(withTokens, {})).auth.anonymous, false);
  assert.equal(
    settingsOf(parseSettings([...withTokens, "--allow-anonymous"], {})).auth
      .anonymous,
    true,
  );
});

Deno.test("parseSettings() reads every authenticator, policy and audit setting", () => {
  const settings = settingsOf(parseSettings([
    "--token-auth-file=/etc/corral/auth/tokens.csv",
    "--oidc-issuer-url",
    "https://dex.example.com/dex",
    "--oidc-client-id",
    "corral",
    "--oidc-ca-file",
    "/etc/corral/oidc/ca.crt",
    "--oidc-username-claim",
    "email",
    "--oidc-username-prefix",
    "oidc:",
    "--authentication-token-review",
    "--authorization-policy-file",
    "/etc/corral/policy/policy.yaml",
    "--audit-log-path",
    "/var/log/corral/audit.log",
  ], { CORRAL_METRICS_REQUIRE_AUTH: "true" }));
  assert.deepEqual(settings.auth, {
    tokenAuthFile: "/etc/corral/auth/tokens.csv",
    oidc: {
      issuerUrl: "https://dex.example.com/dex",
      clientId: "corral",
      caFile: "/etc/corral/oidc/ca.crt",
      usernameClaim: "email",
      groupsClaim: "groups",
      usernamePrefix: "oidc:",
      groupsPrefix: "",
      scopes: ["openid", "profile", "email", "groups", "offline_access"],
    },
    tokenReview: true,
    anonymous: false,
    policyFile: "/etc/corral/policy/policy.yaml",
    ownNamespace: "",
    auditLogPath: "/var/log/corral/audit.log",
    metricsRequireAuth: true,
    failureLimit: { perSecond: 10, burst: 20 },
  });
});

Deno.test("parseSettings() refuses half an OIDC configuration and bad switches", async (t) => {
  const cases: [string[], Record<string, string>, string[]][] = [
    [["--oidc-issuer-url", "https://dex.example.com"], {}, [
      "--oidc-issuer-url needs --oidc-client-id",
    ]],
    [
      ["--oidc-issuer-url", "http://dex.example.com", "--oidc-client-id", "c"],
      {},
      [
        '--oidc-issuer-url must be an https:// URL without query or fragment, got "http://dex.example.com"',
      ],
    ],
    [["--token-auth-file", "t.csv", "--oidc-client-id", "corral"], {}, [
      "--oidc-client-id needs --oidc-issuer-url",
    ]],
    [
      ["--oidc-issuer-url", "https://dex.example.com", "--oidc-client-id", "c"],
      { CORRAL_OIDC_SCOPES: "profile email" },
      ['--oidc-scopes must include openid, got "profile email"'],
    ],
    [["--token-auth-file", "t.csv"], { CORRAL_ALLOW_ANONYMOUS: "maybe" }, [
      '--allow-anonymous (from CORRAL_ALLOW_ANONYMOUS) must be true or false, got "maybe"',
    ]],
  ];
  for (const [args, env, want] of cases) {
    await t.step(args.join(" "), () => {
      assert.deepEqual(problemsOf(parseSettings(args, env)), want);
    });
  }
});

Deno.test("parseSettings() takes a switch as --flag, --flag=false or its variable", () => {
  const tokens = ["--token-auth-file", "t.csv"];
  const review = (args: string[], env: Record<string, string> = {}) =>
    settingsOf(parseSettings([...tokens, ...args], env)).auth.tokenReview;
  assert.equal(review([]), false);
  assert.equal(review(["--authentication-token-review"]), true);
  assert.equal(review(["--authentication-token-review=false"]), false);
  assert.equal(
    review([], { CORRAL_AUTHENTICATION_TOKEN_REVIEW: "true" }),
    true,
  );
});

Deno.test("parseSettings() serves loopback Host names in embedded mode and any in kubernetes mode, unless told", () => {
  assert.deepEqual(
    settingsOf(parse(["--orchestrator", "embedded"], {})).browsers,
    {
      allowedHosts: ["localhost", "127.0.0.1", "[::1]"],
      corsAllowedOrigins: [],
    },
  );
  assert.deepEqual(settingsOf(parse([], {})).browsers.allowedHosts, ["*"]);
  assert.deepEqual(
    settingsOf(
      parse(["--allowed-hosts", "corral.example.com, *.corral.svc"], {}),
    ).browsers.allowedHosts,
    ["corral.example.com", "*.corral.svc"],
  );
  assert.deepEqual(
    settingsOf(parse([], {
      CORRAL_ALLOWED_HOSTS: "localhost",
      CORRAL_CORS_ALLOWED_ORIGINS: "https://console.example.com",
    })).browsers,
    {
      allowedHosts: ["localhost"],
      corsAllowedOrigins: ["https://console.example.com"],
    },
  );
});

Deno.test("parseSettings() names the flag and the entry of a bad host or origin", () => {
  assert.deepEqual(
    problemsOf(parse(["--allowed-hosts", "localhost,http://x"], {})),
    [
      '--allowed-hosts has "http://x", which is not a host name or address with an optional :port, "*.domain" or "*"',
    ],
  );
  assert.deepEqual(problemsOf(parse(["--allowed-hosts", ""], {})), [
    '--allowed-hosts needs at least one entry ("*" for any)',
  ]);
  assert.deepEqual(problemsOf(parse(["--cors-allowed-origins", "*"], {})), [
    '--cors-allowed-origins has "*", which is not an origin: scheme://host[:port] with http or https and no path (any origin, *, is not allowed)',
  ]);
  assert.match(
    problemsOf(
      parse(["--cors-allowed-origins", "https://ok.example,https://x/app"], {}),
    )
      .join(),
    /^--cors-allowed-origins has "https:\/\/x\/app", which is not an origin/,
  );
});

Deno.test("parseSettings() elects a leader in kubernetes mode only, and checks the election's durations together", () => {
  assert.equal(settingsOf(parse([], {})).expiry.leaderElect, true);
  assert.equal(
    settingsOf(parse(["--orchestrator", "embedded"], {})).expiry.leaderElect,
    false,
  );
  const bad = parse(["--leader-elect-renew-deadline", "20s"], {});
  assert.ok(
    "problems" in bad &&
      bad.problems.some((p: string) =>
        p.startsWith("--leader-elect-renew-deadline: must be shorter")
      ),
    JSON.stringify(bad),
  );
});

Deno.test("--kuberay-grpc-port opens a second gRPC port only when set, from the flag or CORRAL_KUBERAY_GRPC_PORT", () => {
  assert.equal(settingsOf(parse([], {})).kuberayGrpcPort, undefined);
  assert.equal(
    settingsOf(parse(["--kuberay-grpc-port", "8889"], {})).kuberayGrpcPort,
    8889,
  );
  assert.equal(
    settingsOf(parse([], { CORRAL_KUBERAY_GRPC_PORT: "0" })).kuberayGrpcPort,
    0,
  );
  assert.match(
    problemsOf(parse(["--kuberay-grpc-port", "x"], {}))[0],
    /^--kuberay-grpc-port must be a port from 0 to 65535, got "x"/,
  );
});
