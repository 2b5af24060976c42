/**
 * Admission of what KubeRay's current fields write, through both
 * transports with the same code and message: ConfigMap and Secret volumes
 * by the rule's secrets, emptyDir and ephemeral sizes by volumes.maxSize,
 * privileged containers and added capabilities by securityContext, the
 * autoscaler's image and variables as a container's, the head service's
 * annotations, and enableIngress by podFields.
 */
import assert from "node:assert/strict";
import {
  type Corral,
  type Outcome,
  startCorral,
  TRANSPORTS,
} from "../../harness.ts";
import { sampleCluster } from "../cases.ts";
import {
  ALICE,
  bearer,
  fileAccess,
  type Person,
  person,
  tokenFileText,
} from "./access_fixtures.ts";
import { allowAll, policyText, users } from "./policy_fixtures.ts";

const NS = "team-a";
const CREATE = "proto.ClusterService/CreateCluster";
const HANA = person("hana", "hana");

const POLICY = policyText([
  allowAll(users("alice"), [NS]),
  allowAll(users("hana"), [NS], {
    images: ["rayproject/ray:*"],
    secrets: ["code-*"],
    annotations: ["example.com/*"],
    podFields: ["enableIngress"],
    volumes: { maxSize: "20Gi" },
    securityContext: { privileged: true, capabilities: ["SYS_PTRACE"] },
  }),
]);

const VOLUME = {
  readOnly: false,
  hostPathType: "DIRECTORY",
  mountPropagationMode: "NONE",
};

/** A cluster of no compute template, its head as `head` says. */
function cluster(
  name: string,
  head: Record<string, unknown> = {},
  spec: Record<string, unknown> = {},
) {
  return {
    namespace: NS,
    cluster: sampleCluster({
      name,
      user: "",
      version: "2.9.0",
      clusterSpec: { headGroupSpec: head, workerGroupSpec: [], ...spec },
    }),
  };
}

const refused = (name: string, detail: string) =>
  `Cannot create cluster "${NS}/${name}": ${detail}`;

interface Case {
  name: string;
  person: Person;
  request: Record<string, unknown>;
  /** 0, or the message of a refusal (code 7). */
  refusal?: string;
}

const HEAD = "cluster.clusterSpec.headGroupSpec";
const POD = "RayCluster spec.headGroupSpec.template.spec";

const CASES: Case[] = [
  {
    name: "a ConfigMap volume the rule's secrets do not name is refused",
    person: ALICE,
    request: cluster("cm", {
      volumes: [{
        ...VOLUME,
        name: "c",
        mountPath: "/c",
        volumeType: "CONFIGMAP",
        source: "code-sample",
      }],
    }),
    refusal: refused(
      "cm",
      `${HEAD}.volumes[0].source: user "alice" may not mount the ConfigMap "code-sample" (${POD}.volumes[0].configMap)`,
    ),
  },
  {
    name: "a ConfigMap volume the rule's secrets name is taken",
    person: HANA,
    request: cluster("cm-ok", {
      volumes: [{
        ...VOLUME,
        name: "c",
        mountPath: "/c",
        volumeType: "CONFIGMAP",
        source: "code-sample",
      }],
    }),
  },
  {
    name: "a Secret volume the rule's secrets do not name is refused",
    person: HANA,
    request: cluster("secret", {
      volumes: [{
        ...VOLUME,
        name: "t",
        mountPath: "/t",
        volumeType: "SECRET",
        source: "tls",
      }],
    }),
    refusal: refused(
      "secret",
      `${HEAD}.volumes[0].source: user "hana" may not mount the Secret "tls" (${POD}.volumes[0].secret)`,
    ),
  },
  {
    name: "an emptyDir past the default 10Gi is refused",
    person: ALICE,
    request: cluster("big-dir", {
      volumes: [{
        ...VOLUME,
        name: "d",
        mountPath: "/d",
        volumeType: "EMPTY_DIR",
        storage: "20Gi",
      }],
    }),
    refusal: refused(
      "big-dir",
      `${HEAD}.volumes[0].storage: user "alice" may not use a volume of 20Gi, more than the 10Gi allowed (${POD}.volumes[0].emptyDir.sizeLimit)`,
    ),
  },
  {
    name: "an emptyDir within the rule's maxSize is taken",
    person: HANA,
    request: cluster("dir-ok", {
      volumes: [{
        ...VOLUME,
        name: "d",
        mountPath: "/d",
        volumeType: "EMPTY_DIR",
        storage: "20Gi",
      }],
    }),
  },
  {
    name: "an ephemeral volume past the rule's maxSize is refused",
    person: HANA,
    request: cluster("big-claim", {
      volumes: [{
        ...VOLUME,
        name: "e",
        mountPath: "/e",
        volumeType: "EPHEMERAL",
        storage: "50Gi",
      }],
    }),
    refusal: refused(
      "big-claim",
      `${HEAD}.volumes[0].storage: user "hana" may not use a volume of 50Gi, more than the 20Gi allowed (${POD}.volumes[0].ephemeral.volumeClaimTemplate.spec.resources.requests.storage)`,
    ),
  },
  {
    name: "a privileged container is refused by default",
    person: ALICE,
    request: cluster("priv", { securityContext: { privileged: true } }),
    refusal: refused(
      "priv",
      `${HEAD}.securityContext.privileged: user "alice" may not run a privileged container (${POD}.containers[0].securityContext.privileged)`,
    ),
  },
  {
    name:
      "a privileged container the rule allows, with its capability, is taken",
    person: HANA,
    request: cluster("priv-ok", {
      securityContext: {
        privileged: true,
        capabilities: { add: ["SYS_PTRACE"], drop: ["ALL"] },
      },
    }),
  },
  {
    name: "a capability the rule does not name is refused; dropping is fine",
    person: HANA,
    request: cluster("cap", {
      securityContext: { capabilities: { add: ["NET_ADMIN"], drop: ["ALL"] } },
    }),
    refusal: refused(
      "cap",
      `${HEAD}.securityContext.capabilities.add[0]: user "hana" may not add the capability "NET_ADMIN" (${POD}.containers[0].securityContext.capabilities.add[0])`,
    ),
  },
  {
    name: "dropping capabilities needs no grant",
    person: ALICE,
    request: cluster("drop", {
      securityContext: { capabilities: { drop: ["ALL"] } },
    }),
  },
  {
    name: "the autoscaler's image is under the image rules",
    person: HANA,
    request: cluster("scaler", {}, {
      enableInTreeAutoscaling: true,
      autoscalerOptions: { image: "evil/ray:1" },
    }),
    refusal: refused(
      "scaler",
      `cluster.clusterSpec.autoscalerOptions.image: user "hana" may not use the image "evil/ray:1" (RayCluster spec.autoscalerOptions.image)`,
    ),
  },
  {
    name: "the autoscaler's variables read only Secrets the rule allows",
    person: ALICE,
    request: cluster("scaler-env", {}, {
      enableInTreeAutoscaling: true,
      autoscalerOptions: {
        envs: { valuesFrom: { T: { source: "SECRET", name: "s", key: "t" } } },
      },
    }),
    refusal: refused(
      "scaler-env",
      `cluster.clusterSpec.autoscalerOptions.envs: user "alice" may not read the Secret "s" (RayCluster spec.autoscalerOptions.env[0].valueFrom.secretKeyRef)`,
    ),
  },
  {
    name: "an autoscaler within the rules is taken",
    person: HANA,
    request: cluster("scaler-ok", {}, {
      enableInTreeAutoscaling: true,
      autoscalerOptions: { image: "rayproject/ray:2.9.0", cpu: "1" },
    }),
  },
  {
    name: "head service annotations are under the rule's annotations",
    person: ALICE,
    request: cluster("svc", {}, {
      headServiceAnnotations: { "example.com/lb": "internal" },
    }),
    refusal: refused(
      "svc",
      `cluster.clusterSpec.headServiceAnnotations["example.com/lb"]: user "alice" may not set the head service annotation "example.com/lb" (RayCluster spec.headServiceAnnotations["example.com/lb"])`,
    ),
  },
  {
    name: "enableIngress needs podFields: enableIngress",
    person: ALICE,
    request: cluster("ingress", { enableIngress: true }),
    refusal: refused(
      "ingress",
      `${HEAD}.enableIngress: user "alice" may not set the field "enableIngress" (RayCluster spec.headGroupSpec.enableIngress)`,
    ),
  },
  {
    name: "a rule opening it takes it, with head service annotations",
    person: HANA,
    request: cluster("ingress-ok", { enableIngress: true }, {
      headServiceAnnotations: { "example.com/lb": "internal" },
    }),
  },
];

async function withPolicy(run: (corral: Corral) => Promise<void>) {
  const files = await fileAccess({
    tokens: tokenFileText([ALICE, HANA]),
    policy: POLICY,
  });
  const corral = await startCorral({ access: files.access });
  try {
    await run(corral);
  } finally {
    await corral.close();
    await files.close();
  }
}

Deno.test("admission of KubeRay's current fields refuses and grants alike over HTTP and gRPC", async (t) => {
  const outcomes: Record<string, Outcome[]> = { http: [], grpc: [] };
  for (const [transport, via] of TRANSPORTS) {
    await withPolicy(async (corral) => {
      await t.step(transport, async (t) => {
        for (const c of CASES) {
          await t.step(c.name, async () => {
            const got = await via(corral, CREATE, c.request, {
              authorization: bearer(c.person),
            });
            outcomes[transport].push(got);
            if (c.refusal === undefined) {
              assert.equal(got.code, 0, got.message);
            } else {
              assert.equal(got.code, 7, got.message);
              assert.equal(got.message, c.refusal);
            }
          });
        }
      });
    });
  }
  await t.step("both transports answer alike", () => {
    CASES.forEach((c, i) => {
      const [http, grpc] = [outcomes.http[i], outcomes.grpc[i]];
      assert.equal(grpc.code, http.code, `${c.name}: code`);
      assert.equal(grpc.message, http.message, `${c.name}: message`);
      assert.deepEqual(grpc.details, http.details, `${c.name}: details`);
    });
  });
});
