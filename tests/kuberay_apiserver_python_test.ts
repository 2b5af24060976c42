/**
 * Acceptance: the requests KubeRay's Python API server client makes
 * (clients/python-apiserver-client in ray-project/kuberay, read at v1.7.0
 * and at its first version of November 2023), made here by Python's
 * `requests` as it makes them, against main.ts in embedded mode with
 * --kuberay-json, on KubeRay's current paths (/apis/v1/) and on v0.6.0's
 * (/apis/v1alpha2/): its cluster flow (template, create, get, list, list
 * all, status until ready, endpoints, delete), reading each answer as its
 * decoders do (a group's `rayStartParams` updated with its defaults, the
 * environment read with int()), the job flow of KubeRay's API server
 * examples (create, get, list, list all, delete), the current client's
 * job-submission flow (submit, get, list, log, stop, delete), and the
 * first (2023) client's cluster create, read and delete, at both bases.
 *
 * Needs a python3 with requests (Debian's python3-requests); without one
 * the test is reported as ignored, saying why.
 */
import { pythonImporting } from "./python.ts";
import assert from "node:assert/strict";
import { DEV_PERMISSIONS, EMBEDDED, startMain } from "./main_process.ts";

/**
 * The flow, at `sys.argv[1]` + `sys.argv[2]` (the server and the API
 * base) in the namespace `sys.argv[3]`; prints one line "ok" or fails with
 * the client's own exception.
 */
const FLOW = `
import sys, time, requests
server, api_base, ns = sys.argv[1], sys.argv[2], sys.argv[3]
headers = {"Content-Type": "application/json", "accept": "application/json"}
url = lambda path: server + api_base + path

def ok(response):
    if response.status_code // 100 != 2:
        raise AssertionError(f"{response.request.method} {response.url}: "
                             f"{response.status_code} {response.json()['message']}")
    return response.json()

def group_params(group, defaults):
    params = group.get("rayStartParams")
    params.update(defaults)  # the client's constructors do this
    return params

def read_cluster(c):
    if "environment" in c:
        int(c.get("environment", "0"))
    spec = c.get("clusterSpec")
    head = group_params(spec.get("headGroupSpec"), {"num-cpus": "0"})
    workers = [group_params(w, {"node-ip-address": "$MY_POD_IP"})
               for w in spec.get("workerGroupSpec", [])]
    return c.get("name"), head, workers, c.get("clusterState"), c.get("serviceEndpoint")

requests.delete(url(f"namespaces/{ns}/compute_templates/default-template"), headers=headers)
requests.delete(url(f"namespaces/{ns}/clusters/test"), headers=headers)
ok(requests.post(url(f"namespaces/{ns}/compute_templates"), headers=headers,
   json={"name": "default-template", "namespace": ns, "cpu": 2, "memory": 4}))
environment = {"values": {"key": "value"}}
volume = {"name": "code-sample", "mountPath": "/home/ray/samples", "source": "ray-job-code-sample",
          "volumeType": 3, "items": {"sample_code.py": "sample_code.py"}}
ok(requests.post(url(f"namespaces/{ns}/clusters"), headers=headers, json={
    "name": "test", "namespace": ns, "user": "kuberay", "version": "2.46.0",
    "clusterSpec": {
        "headGroupSpec": {
            "computeTemplate": "default-template",
            "rayStartParams": {"dashboard-host": "0.0.0.0", "metrics-export-port": "8080", "num-cpus": "0"},
            "image": "rayproject/ray:2.46.0-py310", "serviceType": "ClusterIP",
            "imagePullPolicy": "Always", "environment": environment, "volumes": [volume]},
        "workerGroupSpec": [{
            "groupName": "small", "computeTemplate": "default-template",
            "replicas": 1, "minReplicas": 1, "maxReplicas": 1,
            "rayStartParams": {"node-ip-address": "$MY_POD_IP"},
            "image": "rayproject/ray:2.46.0-py310", "imagePullPolicy": "Always",
            "environment": environment, "volumes": [volume]}]}}))
name, head, workers, _, _ = read_cluster(ok(requests.get(url(f"namespaces/{ns}/clusters/test"), headers=headers)))
assert name == "test" and head["dashboard-host"] == "0.0.0.0", head
assert workers == [{"node-ip-address": "$MY_POD_IP"}], workers
got = ok(requests.get(url(f"namespaces/{ns}/clusters/test"), headers=headers))
assert got["clusterSpec"]["headGroupSpec"]["volumes"] == [volume], got
for path in ["clusters", f"namespaces/{ns}/clusters"]:
    clusters = [read_cluster(c) for c in ok(requests.get(url(path), headers=headers))["clusters"]]
    assert [c[0] for c in clusters] == ["test"], clusters
for _ in range(300):
    _, _, _, state, endpoints = read_cluster(ok(requests.get(url(f"namespaces/{ns}/clusters/test"), headers=headers)))
    if (state or "creating") == "ready":
        break
    time.sleep(0.1)
assert state == "ready", state
assert endpoints["dashboard"], endpoints
ok(requests.delete(url(f"namespaces/{ns}/clusters/test"), headers=headers))
gone = requests.delete(url(f"namespaces/{ns}/clusters/test"), headers=headers)
assert gone.status_code == 404 and gone.json()["message"], gone.text

job = {"name": "job-test", "namespace": ns, "user": "kuberay",
       "entrypoint": "python /home/ray/samples/sample_code.py",
       "activeDeadlineSeconds": 120,
       "clusterSpec": {
           "headGroupSpec": {"computeTemplate": "default-template",
                             "image": "rayproject/ray:2.46.0-py310", "serviceType": "NodePort",
                             "rayStartParams": {"dashboard-host": "0.0.0.0"}},
           "workerGroupSpec": [{"groupName": "small-wg", "computeTemplate": "default-template",
                                "image": "rayproject/ray:2.46.0-py310", "replicas": 1,
                                "minReplicas": 0, "maxReplicas": 5,
                                "rayStartParams": {"node-ip-address": "$MY_POD_IP"}}]}}
ok(requests.post(url(f"namespaces/{ns}/jobs"), headers=headers, json=job))
got = ok(requests.get(url(f"namespaces/{ns}/jobs/job-test"), headers=headers))
group_params(got["clusterSpec"]["headGroupSpec"], {})
for path in ["jobs", f"namespaces/{ns}/jobs"]:
    jobs = ok(requests.get(url(path), headers=headers))["jobs"]
    assert [j["name"] for j in jobs] == ["job-test"], jobs
    group_params(jobs[0]["clusterSpec"]["workerGroupSpec"][0], {})
ok(requests.delete(url(f"namespaces/{ns}/jobs/job-test"), headers=headers))
# The template stays: the job's cluster, which uses it, goes in the background.
print("ok")
`;

/**
 * The job-submission flow of the current client (kuberay_apis.py's
 * submit_job, get_job_info, list_job_info, get_job_log, stop_ray_job,
 * delete_ray_job at `namespaces/{ns}/jobsubmissions/{cluster}`), on a
 * cluster made ready first as its test makes it, each answer read as its
 * RayJobInfo reads it (int() of the start and end times).
 */
const JOB_SUBMISSION_FLOW = `
import sys, time, requests
server, api_base, ns = sys.argv[1], sys.argv[2], sys.argv[3]
headers = {"Content-Type": "application/json", "accept": "application/json"}
url = lambda path: server + api_base + path

def ok(response):
    if response.status_code // 100 != 2:
        raise AssertionError(f"{response.request.method} {response.url}: "
                             f"{response.status_code} {response.json()['message']}")
    return response.json()

def job_info(d):
    return (d.get("entrypoint", ""), d.get("jobId", ""), d.get("submissionId", ""),
            d.get("status", ""), int(d.get("startTime", "0")), int(d.get("endTime", "0")),
            d.get("runtimeEnv", None))

requests.delete(url(f"namespaces/{ns}/clusters/test-job"), headers=headers)
requests.delete(url(f"namespaces/{ns}/compute_templates/job-template"), headers=headers)
ok(requests.post(url(f"namespaces/{ns}/compute_templates"), headers=headers,
   json={"name": "job-template", "namespace": ns, "cpu": 2, "memory": 4}))
environment = {"values": {"key": "value"}}
ok(requests.post(url(f"namespaces/{ns}/clusters"), headers=headers, json={
    "name": "test-job", "namespace": ns, "user": "kuberay", "version": "2.46.0",
    "clusterSpec": {
        "headGroupSpec": {
            "computeTemplate": "job-template",
            "rayStartParams": {"metrics-export-port": "8080", "num-cpus": "0"},
            "image": "rayproject/ray:2.46.0-py310", "serviceType": "ClusterIP",
            "imagePullPolicy": "IfNotPresent", "environment": environment},
        "workerGroupSpec": [{
            "groupName": "small", "computeTemplate": "job-template",
            "replicas": 0, "minReplicas": 0, "maxReplicas": 2,
            "rayStartParams": {"node-ip-address": "$MY_POD_IP"},
            "image": "rayproject/ray:2.46.0-py310", "imagePullPolicy": "IfNotPresent",
            "environment": environment}],
        # As the client writes AutoscalerOptions: the flag with them.
        "enableInTreeAutoscaling": True,
        "autoscalerOptions": {"upscalingMode": "Default"}}}))
for _ in range(300):
    state = ok(requests.get(url(f"namespaces/{ns}/clusters/test-job"), headers=headers)).get("clusterState")
    if state == "ready":
        break
    time.sleep(0.1)
assert state == "ready", state

jobs = url(f"namespaces/{ns}/jobsubmissions/test-job")
infos = ok(requests.get(jobs, headers=headers)).get("submissions", None) or []
runtime_env = "pip:\\n  - requests==2.26.0\\nenv_vars:\\n  counter_name: test_counter\\n"
sid = ok(requests.post(jobs, headers=headers, json={
    "entrypoint": "python /home/ray/samples/sample_code.py",
    "runtimeEnv": runtime_env, "numCpus": 0.5}))["submissionId"]
assert sid, sid
entrypoint, _, got_sid, status, start, _, _ = job_info(ok(requests.get(f"{jobs}/{sid}", headers=headers)))
assert entrypoint == "python /home/ray/samples/sample_code.py" and got_sid == sid, (entrypoint, got_sid)
listed = [job_info(i) for i in ok(requests.get(jobs, headers=headers)).get("submissions", None) or []]
assert sid in [i[2] for i in listed], listed
log = ok(requests.get(f"{jobs}/log/{sid}", headers=headers)).get("log", "")
assert isinstance(log, str), log
ok(requests.post(f"{jobs}/{sid}", headers=headers))
ok(requests.delete(f"{jobs}/{sid}", headers=headers))
gone = requests.get(f"{jobs}/{sid}", headers=headers)
assert gone.status_code // 100 != 2 and gone.json()["message"], gone.text
ok(requests.delete(url(f"namespaces/{ns}/clusters/test-job"), headers=headers))
print("ok")
`;

/**
 * The first version of the client (November 2023) creating, reading and
 * deleting a cluster: its own request shape (the environment as
 * `values`, the user and version of its test) and its decoders (the
 * cluster's events as its ClusterEvent reads them, int() of the
 * environment, each group's rayStartParams updated), with the ConfigMap
 * volume (volumeType 3) its test mounts on the head.
 */
const FLOW_2023 = `
import sys, requests
server, api_base, ns = sys.argv[1], sys.argv[2], sys.argv[3]
headers = {"Content-Type": "application/json", "accept": "application/json"}
url = lambda path: server + api_base + path

def ok(response):
    if response.status_code // 100 != 2:
        raise AssertionError(f"{response.request.method} {response.url}: "
                             f"{response.status_code} {response.json()['message']}")
    return response.json()

def decode_cluster(d):
    if "environment" in d:
        int(d.get("environment", "0"))
    events = [(e.get("id", ""), e.get("reason", ""), e.get("count", "0"))
              for e in d["events"]] if "events" in d else None
    spec = d.get("clusterSpec")
    head = spec.get("headGroupSpec")
    head.get("rayStartParams").update({})
    workers = [w.get("rayStartParams") for w in spec["workerGroupSpec"]] if "workerGroupSpec" in spec else None
    return d.get("name", ""), d.get("user", ""), events, workers, d.get("clusterState")

requests.delete(url(f"namespaces/{ns}/clusters/test-2023"), headers=headers)
requests.delete(url(f"namespaces/{ns}/compute_templates/template-2023"), headers=headers)
ok(requests.post(url(f"namespaces/{ns}/compute_templates"), headers=headers,
   json={"name": "template-2023", "namespace": ns, "cpu": 2, "memory": 4}))
environment = {"values": {"key": "value"}}
ok(requests.post(url(f"namespaces/{ns}/clusters"), headers=headers, json={
    "name": "test-2023", "namespace": ns, "user": "boris", "version": "2.7.0",
    "clusterSpec": {
        "headGroupSpec": {"computeTemplate": "template-2023",
                          "rayStartParams": {"metrics-export-port": "8080", "num-cpus": "0"},
                          "image": "rayproject/ray:2.7.0-py310", "serviceType": "ClusterIP",
                          "volumes": [{"name": "code-sample", "mountPath": "/home/ray/samples",
                                       "source": "ray-job-code-sample", "volumeType": 3,
                                       "items": {"sample_code.py": "sample_code.py"}}],
                          "environment": environment},
        "workerGroupSpec": [{"groupName": "small", "computeTemplate": "template-2023",
                             "replicas": 1, "minReplicas": 1, "maxReplicas": 1,
                             "rayStartParams": {"node-ip-address": "$MY_POD_IP"},
                             "image": "rayproject/ray:2.7.0-py310",
                             "environment": environment}]}}))
name, user, _, workers, _ = decode_cluster(ok(requests.get(url(f"namespaces/{ns}/clusters/test-2023"), headers=headers)))
assert (name, user) == ("test-2023", "boris"), (name, user)
read = ok(requests.get(url(f"namespaces/{ns}/clusters/test-2023"), headers=headers))
volumes = read["clusterSpec"]["headGroupSpec"]["volumes"]
assert [(v["volumeType"], v["source"]) for v in volumes] in (
    [(3, "ray-job-code-sample")], [("CONFIGMAP", "ray-job-code-sample")]), volumes
assert workers == [{"node-ip-address": "$MY_POD_IP"}], workers
ok(requests.delete(url(f"namespaces/{ns}/clusters/test-2023"), headers=headers))
gone = requests.get(url(f"namespaces/{ns}/clusters/test-2023"), headers=headers)
assert gone.status_code == 404, gone.text
ok(requests.delete(url(f"namespaces/{ns}/compute_templates/template-2023"), headers=headers))
print("ok")
`;

const PYTHON = pythonImporting("requests");
const NAME =
  "KubeRay's Python API server client's requests work against main.ts --kuberay-json, at /apis/v1 and at /apis/v1alpha2: clusters, jobs, job submissions, and the 2023 client's clusters";

Deno.test({
  name: PYTHON
    ? NAME
    : `${NAME} (ignored: no python3 imports requests; apt-get install python3-requests)`,
  ignore: !PYTHON,
  async fn(t) {
    const corral = await startMain({
      permissions: DEV_PERMISSIONS,
      args: [...EMBEDDED, "--kuberay-json"],
      startTimeoutMs: 30_000,
    });
    try {
      const flows: [string, string, string, string][] = [
        ["cluster and job flow", FLOW, "/apis/v1/", "default"],
        ["cluster and job flow", FLOW, "/apis/v1alpha2/", "team-a"],
        ["job submissions", JOB_SUBMISSION_FLOW, "/apis/v1/", "team-j"],
        ["the 2023 client's cluster", FLOW_2023, "/apis/v1alpha2/", "team-o"],
        ["the 2023 client's cluster", FLOW_2023, "/apis/v1/", "team-o"],
      ];
      for (const [what, flow, apiBase, namespace] of flows) {
        await t.step(`${what} at ${apiBase}`, async () => {
          const { code, stdout, stderr } = await new Deno.Command(PYTHON!, {
            args: ["-c", flow, corral.http, apiBase, namespace],
            stdin: "null",
          }).output();
          const out = new TextDecoder().decode(stdout);
          const err = new TextDecoder().decode(stderr);
          assert.equal(code, 0, `python exited with ${code}:\n${out}${err}`);
          assert.equal(out.trim(), "ok");
        });
      }
    } finally {
      const status = await corral.stop();
      assert.equal(
        status.code,
        0,
        `main.ts exit code; logs:\n${corral.logs.join("\n")}`,
      );
    }
  },
});
