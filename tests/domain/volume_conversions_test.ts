import assert from "node:assert/strict";
import {
  podVolume,
  volumeMount,
  volumesOf,
} from "../../domain/volume_conversions.ts";
import type { PodTemplateSpec } from "../../domain/resources.ts";
import type { Volume } from "../../domain/types.ts";
import { volume } from "./builders.ts";

/** Each kind of volume, and the pod volume KubeRay's API server writes. */
const KINDS: [string, Volume, Record<string, unknown>][] = [
  [
    "a persistent volume claim",
    volume({ readOnly: true }),
    {
      name: "data",
      persistentVolumeClaim: { claimName: "data-pvc", readOnly: true },
    },
  ],
  [
    "a host path",
    volume({ volumeType: "HOST_PATH", source: "/mnt", hostPathType: "FILE" }),
    { name: "data", hostPath: { path: "/mnt", type: "File" } },
  ],
  [
    "an ephemeral volume",
    volume({
      volumeType: "EPHEMERAL",
      source: "",
      storage: "5Gi",
      storageClassName: "fast",
      accessMode: "RWX",
    }),
    {
      name: "data",
      ephemeral: {
        volumeClaimTemplate: {
          metadata: {
            labels: { "app.kubernetes.io/managed-by": "kuberay-apiserver" },
          },
          spec: {
            accessModes: ["ReadWriteMany"],
            resources: { requests: { storage: "5Gi" } },
            storageClassName: "fast",
          },
        },
      },
    },
  ],
  [
    "an ephemeral volume of the default class and access mode",
    volume({ volumeType: "EPHEMERAL", source: "", storage: "1Gi" }),
    {
      name: "data",
      ephemeral: {
        volumeClaimTemplate: {
          metadata: {
            labels: { "app.kubernetes.io/managed-by": "kuberay-apiserver" },
          },
          spec: {
            accessModes: ["ReadWriteOnce"],
            resources: { requests: { storage: "1Gi" } },
          },
        },
      },
    },
  ],
  [
    "a ConfigMap with items",
    volume({
      volumeType: "CONFIGMAP",
      source: "code",
      items: { "run.py": "bin/run.py", "a.yaml": "a.yaml" },
    }),
    {
      name: "data",
      configMap: {
        name: "code",
        items: [
          { key: "a.yaml", path: "a.yaml" },
          { key: "run.py", path: "bin/run.py" },
        ],
      },
    },
  ],
  [
    "a Secret",
    volume({ volumeType: "SECRET", source: "tls", readOnly: true }),
    { name: "data", secret: { secretName: "tls" } },
  ],
  [
    "an emptyDir with a size limit",
    volume({ volumeType: "EMPTY_DIR", source: "", storage: "512Mi" }),
    { name: "data", emptyDir: { sizeLimit: "512Mi" } },
  ],
  [
    "an emptyDir without one",
    volume({ volumeType: "EMPTY_DIR", source: "" }),
    { name: "data", emptyDir: {} },
  ],
];

Deno.test("podVolume() writes each kind of volume as KubeRay's API server does, and volumesOf() reads it back as given", async (t) => {
  for (const [name, given, written] of KINDS) {
    await t.step(name, () => {
      assert.deepEqual(podVolume(given), written);
      const template: PodTemplateSpec = {
        spec: {
          containers: [{
            name: "ray-head",
            image: "x",
            volumeMounts: [volumeMount(given)],
          }],
          volumes: [podVolume(given)],
        },
      };
      assert.deepEqual(
        volumesOf(template, template.spec.containers[0]),
        [given],
      );
    });
  }
});

Deno.test("volumesOf() leaves out what it could not write back: an emptyDir in memory, a ConfigMap's defaultMode, a Secret's item mode", () => {
  const template: PodTemplateSpec = {
    spec: {
      containers: [{
        name: "ray-head",
        image: "x",
        volumeMounts: ["shm", "code", "tls"].map((name) => ({
          name,
          mountPath: `/${name}`,
        })),
      }],
      volumes: [
        { name: "shm", emptyDir: { medium: "Memory" } },
        { name: "code", configMap: { name: "code", defaultMode: 420 } },
        {
          name: "tls",
          secret: {
            secretName: "tls",
            items: [{ key: "a", path: "a", mode: 256 }],
          },
        },
      ],
    },
  };
  assert.deepEqual(volumesOf(template, template.spec.containers[0]), []);
});
