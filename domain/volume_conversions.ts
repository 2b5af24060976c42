/**
 * A group's volumes, written into its pod template and read back, as the
 * KubeRay API server writes them (apiserver/pkg/util/cluster.go,
 * buildVols and buildVolumeMounts, and its converter back): every volume
 * a pod volume of its kind and a mount of the group's container.
 *
 * - PERSISTENT_VOLUME_CLAIM: `persistentVolumeClaim: {claimName: source}`,
 *   `readOnly` on the claim and the mount.
 * - HOST_PATH: `hostPath: {path: source, type: Directory | File}`.
 * - EPHEMERAL: a generic ephemeral volume, its claim template labelled as
 *   the API server's, requesting `storage`, of `storageClassName` when set,
 *   with the access mode (ReadWriteOnce by default).
 * - CONFIGMAP and SECRET: `configMap: {name: source}` and
 *   `secret: {secretName: source}`, `items` as [{key, path}] (sorted by key,
 *   so the object is deterministic; KubeRay's order is a Go map's).
 * - EMPTY_DIR: `emptyDir: {}`, with `sizeLimit: storage` when set.
 *
 * Mount propagation NONE and `readOnly: false` are left out (Kubernetes'
 * defaults), as KubeRay writes them. Read-back takes the kinds above, each
 * with the mount of its name, and leaves out the volumes of other kinds and
 * those nothing mounts.
 */
import { LABEL, MANAGED_BY } from "./resources.ts";
import type {
  Container,
  PodTemplateSpec,
  PodVolume,
  VolumeMount,
} from "./resources.ts";
import type { AccessMode, MountPropagationMode, Volume } from "./types.ts";
import { isPlainObject } from "./message_form.ts";

const MOUNT_PROPAGATION: Record<
  MountPropagationMode,
  VolumeMount["mountPropagation"] | undefined
> = {
  NONE: undefined,
  HOSTTOCONTAINER: "HostToContainer",
  BIDIRECTIONAL: "Bidirectional",
};

/** Kubernetes' access modes of a claim, by KubeRay's names. */
const ACCESS_MODES: Record<AccessMode, string> = {
  RWO: "ReadWriteOnce",
  ROX: "ReadOnlyMany",
  RWX: "ReadWriteMany",
};

/** The mount of a volume in the group's container. */
export function volumeMount(volume: Volume): VolumeMount {
  const mount: VolumeMount = { name: volume.name, mountPath: volume.mountPath };
  if (volume.readOnly) mount.readOnly = true;
  const propagation = MOUNT_PROPAGATION[volume.mountPropagationMode];
  if (propagation !== undefined) mount.mountPropagation = propagation;
  return mount;
}

/** The pod volume of a volume, by its kind. */
export function podVolume(volume: Volume): PodVolume {
  const name = volume.name;
  switch (volume.volumeType) {
    case "HOST_PATH":
      return {
        name,
        hostPath: {
          path: volume.source,
          type: volume.hostPathType === "FILE" ? "File" : "Directory",
        },
      };
    case "EPHEMERAL":
      return { name, ephemeral: ephemeralSource(volume) };
    case "CONFIGMAP":
      return {
        name,
        configMap: { name: volume.source, ...itemsOf(volume.items) },
      };
    case "SECRET":
      return {
        name,
        secret: { secretName: volume.source, ...itemsOf(volume.items) },
      };
    case "EMPTY_DIR":
      return {
        name,
        emptyDir: volume.storage !== "" ? { sizeLimit: volume.storage } : {},
      };
    case "PERSISTENT_VOLUME_CLAIM": {
      const claim: { claimName: string; readOnly?: boolean } = {
        claimName: volume.source,
      };
      if (volume.readOnly) claim.readOnly = true;
      return { name, persistentVolumeClaim: claim };
    }
  }
}

function ephemeralSource(volume: Volume): Record<string, unknown> {
  return {
    volumeClaimTemplate: {
      metadata: { labels: { [LABEL.managedBy]: MANAGED_BY } },
      spec: {
        accessModes: [ACCESS_MODES[volume.accessMode]],
        resources: { requests: { storage: volume.storage } },
        ...(volume.storageClassName !== ""
          ? { storageClassName: volume.storageClassName }
          : {}),
      },
    },
  };
}

function itemsOf(
  items: Record<string, string>,
): { items?: { key: string; path: string }[] } {
  const keys = Object.keys(items ?? {}).sort();
  if (keys.length === 0) return {};
  return { items: keys.map((key) => ({ key, path: items[key] })) };
}

/**
 * Volumes re-joined from the pod's volumes and the main container's mounts
 * (any container's when the main one does not mount it). Volume kinds the
 * API cannot express and unmounted volumes are left out.
 */
export function volumesOf(
  template: PodTemplateSpec | undefined,
  container: Container | undefined,
): Volume[] {
  const volumes: Volume[] = [];
  for (const volume of template?.spec?.volumes ?? []) {
    const mount = container?.volumeMounts?.find((m) =>
      m.name === volume.name
    ) ??
      template?.spec?.containers?.flatMap((c) => c.volumeMounts ?? []).find((
        m,
      ) => m.name === volume.name);
    if (mount === undefined) continue;
    const read = volumeOf(volume, mount);
    if (read !== undefined) volumes.push(read);
  }
  return volumes;
}

/** The volume a pod volume and its mount hold; undefined for other kinds. */
function volumeOf(volume: PodVolume, mount: VolumeMount): Volume | undefined {
  const common: Volume = {
    mountPath: mount.mountPath,
    name: volume.name,
    mountPropagationMode: mountPropagationOf(mount.mountPropagation),
    volumeType: "PERSISTENT_VOLUME_CLAIM",
    source: "",
    readOnly: mount.readOnly === true,
    hostPathType: "DIRECTORY",
    storageClassName: "",
    accessMode: "RWO",
    storage: "",
    items: {},
  };
  if (volume.hostPath !== undefined) {
    return {
      ...common,
      volumeType: "HOST_PATH",
      source: volume.hostPath.path ?? "",
      hostPathType: volume.hostPath.type === "File" ? "FILE" : "DIRECTORY",
    };
  }
  if (volume.persistentVolumeClaim !== undefined) {
    return {
      ...common,
      source: volume.persistentVolumeClaim.claimName ?? "",
      readOnly: common.readOnly ||
        volume.persistentVolumeClaim.readOnly === true,
    };
  }
  const source = objectOf(
    volume.configMap ?? volume.secret ?? volume.emptyDir ?? volume.ephemeral,
  );
  if (!expressible(volume)) return undefined;
  if (isPlainObject(volume.configMap) || isPlainObject(volume.secret)) {
    return {
      ...common,
      volumeType: isPlainObject(volume.configMap) ? "CONFIGMAP" : "SECRET",
      source: text(
        isPlainObject(volume.configMap) ? source.name : source.secretName,
      ),
      items: itemsFrom(source.items),
    };
  }
  if (isPlainObject(volume.emptyDir)) {
    return {
      ...common,
      volumeType: "EMPTY_DIR",
      storage: text(source.sizeLimit),
    };
  }
  if (isPlainObject(volume.ephemeral)) {
    return { ...common, ...ephemeralOf(source) };
  }
  return undefined;
}

/**
 * The fields of each kind the API has: a volume setting any other (an
 * emptyDir in memory, a ConfigMap's defaultMode) is not read back, since
 * writing it back would lose them.
 */
const KIND_FIELDS: Record<string, readonly string[]> = {
  configMap: ["name", "items"],
  secret: ["secretName", "items"],
  emptyDir: ["sizeLimit"],
  ephemeral: ["volumeClaimTemplate"],
};

function expressible(volume: PodVolume): boolean {
  return Object.entries(KIND_FIELDS).every(([kind, fields]) => {
    const source = volume[kind];
    if (source === undefined) return true;
    if (!isPlainObject(source)) return false;
    const items = Array.isArray(source.items) ? source.items : [];
    return Object.keys(source).every((key) => fields.includes(key)) &&
      items.every((item) =>
        isPlainObject(item) &&
        Object.keys(item).every((key) => key === "key" || key === "path")
      );
  });
}

function ephemeralOf(source: Record<string, unknown>): Partial<Volume> {
  const spec = objectOf(objectOf(source.volumeClaimTemplate).spec);
  const modes = Array.isArray(spec.accessModes) ? spec.accessModes : [];
  const mode = (Object.keys(ACCESS_MODES) as AccessMode[]).find((m) =>
    ACCESS_MODES[m] === modes[0]
  );
  return {
    volumeType: "EPHEMERAL",
    storage: text(objectOf(objectOf(spec.resources).requests).storage),
    storageClassName: text(spec.storageClassName),
    accessMode: mode ?? "RWO",
  };
}

function itemsFrom(items: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of Array.isArray(items) ? items : []) {
    const { key, path } = objectOf(item);
    if (typeof key !== "string") continue;
    Object.defineProperty(out, key, {
      value: text(path),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function mountPropagationOf(
  value: string | undefined,
): MountPropagationMode {
  switch (value) {
    case "HostToContainer":
      return "HOSTTOCONTAINER";
    case "Bidirectional":
      return "BIDIRECTIONAL";
    default:
      return "NONE";
  }
}

function objectOf(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}
