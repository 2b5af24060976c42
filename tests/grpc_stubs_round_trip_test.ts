/**
 * Acceptance (issue 36, item 5): Python stubs of both generations of
 * KubeRay's protos create, get, list and delete compute templates,
 * clusters, jobs and services on main.ts in embedded mode, every field
 * round-tripping:
 *
 * - stubs of KubeRay's current protos (proto/kuberay/) on the second port,
 *   --kuberay-grpc-port;
 * - stubs of v0.6.0's numbering, which proto/*.proto keeps with Corral's
 *   additions, on the main port.
 *
 * tests/grpc_stubs_round_trip.py generates the stubs with Debian's
 * grpc_tools at test time and does the calls; the samples here between them
 * set every field the stubs have, which it checks by reflection of the
 * stubs, so a field added to the .proto files fails here until a sample sets
 * it. A field of KubeRay's that Corral has no home for must be refused by
 * name (code 3, "unknown field: KubeRay's, which Corral does not keep"), and
 * the API's own definition must indeed lack it; every other field must read
 * back as sent.
 *
 * Needs /usr/bin/python3 with grpc and grpc_tools (apt-get install
 * python3-grpcio python3-grpc-tools); without them the test is reported as
 * ignored, saying why.
 */
import { missingModules, PYTHON } from "./python.ts";
import assert from "node:assert/strict";
import type protobuf from "protobufjs";
import { fieldByJsonKey } from "../domain/codec.ts";
import { enumOf, messageTypeOf } from "../domain/message_form.ts";
import { NOT_KEPT } from "../api/grpc/kuberay_codec.ts";
import { loadApiSchema } from "../api/schema.ts";
import { DEV_PERMISSIONS, EMBEDDED, startMain } from "./main_process.ts";
import { KUBERAY_SAMPLES, v060Samples } from "./grpc_stubs_samples.ts";

const SCRIPT = new URL("./grpc_stubs_round_trip.py", import.meta.url).pathname;

const hasGrpcTools = missingModules("grpc, grpc_tools") === "";

/** What the script reports of one sample. */
interface SampleReport {
  name: string;
  refused: { field: string; description: string }[];
  mismatches: unknown[];
  createFailed?: { code: number; message: string };
  listed?: boolean;
  deleted?: boolean;
  afterDelete?: number;
}

type Report = Record<
  string,
  { uncovered: string[]; samples: SampleReport[] }
>;

async function runScript(
  flavor: "kuberay" | "corral",
  target: string,
  samples: unknown,
): Promise<Report> {
  const file = await Deno.makeTempFile({ suffix: ".json" });
  try {
    await Deno.writeTextFile(file, JSON.stringify(samples));
    const { code, stdout, stderr } = await new Deno.Command(PYTHON, {
      args: [SCRIPT, flavor, target, file],
      stdin: "null",
    }).output();
    const out = new TextDecoder().decode(stdout);
    assert.equal(
      code,
      0,
      `grpc_stubs_round_trip.py exited with ${code}:\n${out}${
        new TextDecoder().decode(stderr)
      }`,
    );
    return JSON.parse(out);
  } finally {
    await Deno.remove(file);
  }
}

/** The request types of the API's creates, by kind. */
const CREATES: Record<string, string> = {
  template: "proto.CreateComputeTemplateRequest",
  cluster: "proto.CreateClusterRequest",
  job: "proto.CreateRayJobRequest",
  service: "proto.CreateRayServiceRequest",
};

/**
 * The API's field at `path` of its request `type` (a violation's,
 * "cluster.clusterSpec.workerGroupSpec[0].enableIngress"), if it has one.
 */
function apiField(
  type: protobuf.Type,
  path: string,
): protobuf.Field | undefined {
  let current: protobuf.Type | undefined = type;
  let field: protobuf.Field | undefined;
  for (const part of path.replace(/\[[^\]]*\]/g, "").split(".")) {
    field = current && fieldByJsonKey(current, part);
    if (!field) return undefined;
    current = field.map ? undefined : messageTypeOf(field);
  }
  return field;
}

/**
 * Why a refusal of a create is right, or undefined: a field of KubeRay's
 * that the API has no home for, refused by name; a value of an enum the
 * API's enum does not have (a volume type); or one of `designed`, refusals
 * by design, each with its reason.
 */
function rightRefusal(
  request: protobuf.Type,
  { field, description }: { field: string; description: string },
  designed: Record<string, RegExp>,
): string | undefined {
  const found = apiField(request, field);
  if (description === NOT_KEPT) {
    return found ? undefined : "a field the API has no home for";
  }
  const value = /^must be one of .*, got (\d+)$/.exec(description);
  const values = found && enumOf(found)?.valuesById;
  if (value && values && values[Number(value[1])] === undefined) {
    return "a value the API's enum does not have";
  }
  const reason = designed[field];
  return reason?.test(description) ? "refused by design" : undefined;
}

function checkReport(
  report: Report,
  api: protobuf.Root,
  flavor: string,
  designed: Record<string, RegExp> = {},
): void {
  for (const [kind, { uncovered, samples }] of Object.entries(report)) {
    assert.deepEqual(uncovered, [], `${flavor} ${kind}: fields no sample sets`);
    const request = api.lookupType(CREATES[kind]);
    for (const sample of samples) {
      const what = `${flavor} ${kind} ${sample.name}`;
      assert.equal(sample.createFailed, undefined, `${what}: create failed`);
      for (const refusal of sample.refused) {
        assert.ok(
          rightRefusal(request, refusal, designed),
          `${what}: refused ${refusal.field}: ${refusal.description}`,
        );
      }
      assert.deepEqual(sample.mismatches, [], `${what}: not read back as sent`);
      assert.equal(sample.listed, true, `${what}: listed as got`);
      assert.equal(sample.deleted, true, `${what}: deleted`);
      assert.equal(sample.afterDelete, 5, `${what}: NOT_FOUND once deleted`);
    }
  }
}

Deno.test({
  name:
    "stubs of KubeRay's current protos create, get, list and delete every kind on --kuberay-grpc-port, and those of v0.6.0's numbering on the main port, every field read back as sent or refused by name",
  ignore: !hasGrpcTools,
  async fn() {
    const api = await loadApiSchema();
    const main = await startMain({
      args: [...EMBEDDED, "--kuberay-grpc-port", "0", "--allow-anonymous"],
      permissions: DEV_PERMISSIONS,
      startTimeoutMs: 30_000,
    });
    try {
      const kuberay = await runScript(
        "kuberay",
        `127.0.0.1:${main.started.kuberayGrpcPort}`,
        KUBERAY_SAMPLES,
      );
      checkReport(kuberay, api.root, "KubeRay's current protos");
      const v060 = await runScript("corral", main.grpc, v060Samples(api.root));
      checkReport(v060, api.root, "v0.6.0's numbering", {
        // Serve's first config format, which KubeRay's operator dropped in
        // 1.0: every field of it is set, and refused as one.
        "service.serveDeploymentGraphSpec": /Serve's first config format/,
      });
    } finally {
      await main.stop();
    }
  },
});

if (!hasGrpcTools) {
  console.warn(
    "grpc_stubs_round_trip_test.ts ignored: /usr/bin/python3 has no grpc and grpc_tools (apt-get install python3-grpcio python3-grpc-tools)",
  );
}
