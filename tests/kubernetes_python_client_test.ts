/**
 * Acceptance: the Python `kubernetes` client (Debian's python3-kubernetes,
 * 22.6) and its CustomObjectsApi, pointed at main.ts in embedded mode with
 * a bearer token, as a tool written against KubeRay's CRDs uses it:
 * create, get, get_..._status, list, list across namespaces, watch
 * (watch.Watch().stream over list_namespaced_custom_object), patch (a
 * merge patch, as 22.6 sends every one; a JSON patch, with the
 * Content-Type set as a default header) and delete a RayCluster at
 * /apis/ray.io/v1; a hostPath volume the policy does not allow refused
 * with ApiException 403; no token 401; another namespace 403.
 *
 * Needs a python3 with the kubernetes module; without one the test is
 * reported as ignored, saying why.
 */
import { pythonImporting } from "./python.ts";
import assert from "node:assert/strict";
import {
  ALICE,
  tokenFileText,
  writeAccessFiles,
} from "./api/auth/access_fixtures.ts";
import { allowAll, policyText, users } from "./api/auth/policy_fixtures.ts";
import { rayCluster } from "./api/http/ray_objects_world.ts";
import { DEV_PERMISSIONS, EMBEDDED, startMain } from "./main_process.ts";

/**
 * The flow: `sys.argv[1:]` are the server, the token, the namespace, a
 * namespace the caller has no rule in, and the RayCluster and its hostPath
 * twin as JSON. Prints "ok" or fails with the client's own exception.
 */
const FLOW = `
import sys, json
from kubernetes import client, watch
from kubernetes.client.rest import ApiException

server, token, ns, other = sys.argv[1:5]
cluster, host_path_cluster = json.loads(sys.argv[5]), json.loads(sys.argv[6])
G, V, P = "ray.io", "v1", "rayclusters"

def objects_api(token, content_type=None):
    configuration = client.Configuration()
    configuration.host = server
    if token:
        configuration.api_key = {"authorization": "Bearer " + token}
    api_client = client.ApiClient(configuration)
    if content_type:
        # 22.6 sends every custom object patch as a merge patch: a JSON
        # patch takes a default header, which overrides it.
        api_client.set_default_header("Content-Type", content_type)
    return client.CustomObjectsApi(api_client)

def refused(status, call, *args):
    try:
        call(*args)
    except ApiException as error:
        assert error.status == status, (error.status, error.body)
        assert json.loads(error.body)["kind"] == "Status", error.body
        return json.loads(error.body)
    raise AssertionError(f"{call.__name__} was not refused")

api = objects_api(token)
created = api.create_namespaced_custom_object(G, V, ns, P, cluster)
assert created["metadata"]["labels"]["ray.io/user"] == "alice", created["metadata"]
got = api.get_namespaced_custom_object(G, V, ns, P, "blue")
assert got["spec"]["headGroupSpec"] == cluster["spec"]["headGroupSpec"]
status = api.get_namespaced_custom_object_status(G, V, ns, P, "blue")
assert status["metadata"]["name"] == "blue"
listed = api.list_namespaced_custom_object(G, V, ns, P)
assert [i["metadata"]["name"] for i in listed["items"]] == ["blue"], listed
everywhere = api.list_cluster_custom_object(G, V, P)
assert [i["metadata"]["namespace"] for i in everywhere["items"]] == [ns]

merged = api.patch_namespaced_custom_object(G, V, ns, P, "blue",
                                           {"metadata": {"labels": {"team": "ml"}}})
assert merged["metadata"]["labels"]["team"] == "ml"
json_patches = objects_api(token, "application/json-patch+json")
patched = json_patches.patch_namespaced_custom_object(G, V, ns, P, "blue", [
    {"op": "replace", "path": "/metadata/labels/team", "value": "web"}])
assert patched["metadata"]["labels"]["team"] == "web"

# The watch from the list's version: what changed since (both patches,
# and the operator's status writes), then the delete.
stream = watch.Watch()
seen = []
for event in stream.stream(api.list_namespaced_custom_object, G, V, ns, P,
                           resource_version=listed["metadata"]["resourceVersion"]):
    labels = event["object"]["metadata"].get("labels", {})
    if not seen or seen[-1] != (event["type"], labels.get("team")):
        seen.append((event["type"], labels.get("team")))
    if seen[-1] == ("MODIFIED", "web") and len(seen) == 2:
        api.delete_namespaced_custom_object(G, V, ns, P, "blue")
    if event["type"] == "DELETED":
        stream.stop()
assert seen == [("MODIFIED", "ml"), ("MODIFIED", "web"), ("DELETED", "web")], seen
refused(404, api.get_namespaced_custom_object, G, V, ns, P, "blue")

body = refused(403, api.create_namespaced_custom_object, G, V, ns, P, host_path_cluster)
assert "hostPath" in body["message"], body
refused(401, objects_api("").list_namespaced_custom_object, G, V, ns, P)
refused(403, api.list_namespaced_custom_object, G, V, other, P)
refused(403, api.create_namespaced_custom_object, G, V, other, P, cluster)
print("ok")
`;

const PYTHON = pythonImporting("kubernetes");
const NAME =
  "the Python kubernetes client's CustomObjectsApi creates, gets, lists, watches, patches and deletes a RayCluster through Corral with a bearer token, and is refused a hostPath volume (403), no token (401) and another namespace (403)";

Deno.test({
  name: PYTHON
    ? NAME
    : `${NAME} (ignored: no python3 imports kubernetes; apt-get install python3-kubernetes)`,
  ignore: !PYTHON,
  async fn() {
    const files = await writeAccessFiles({
      tokens: tokenFileText([ALICE]),
      policy: policyText([allowAll(users("alice"), ["team-a"])]),
    });
    const corral = await startMain({
      permissions: DEV_PERMISSIONS,
      args: [
        ...EMBEDDED,
        "--token-auth-file",
        files.tokenFile,
        "--authorization-policy-file",
        files.policyFile,
      ],
      startTimeoutMs: 30_000,
    });
    try {
      const hostPath = rayCluster("host", {
        pods: { volumes: [{ name: "root", hostPath: { path: "/" } }] },
      });
      const { code, stdout, stderr } = await new Deno.Command(PYTHON!, {
        args: [
          "-c",
          FLOW,
          corral.http,
          ALICE.token,
          "team-a",
          "team-b",
          JSON.stringify(rayCluster("blue")),
          JSON.stringify(hostPath),
        ],
        stdin: "null",
      }).output();
      const out = new TextDecoder().decode(stdout);
      const err = new TextDecoder().decode(stderr);
      assert.equal(code, 0, `python exited with ${code}:\n${out}${err}`);
      assert.equal(out.trim(), "ok");
    } finally {
      const status = await corral.stop();
      await files.remove();
      assert.equal(
        status.code,
        0,
        `main.ts exit code; logs:\n${corral.logs.join("\n")}`,
      );
    }
  },
});
