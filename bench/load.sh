#!/usr/bin/env bash
# Load on loopback with wrk: `deno task dev` (embedded mode) on free ports, a
# template and a cluster, then GetCluster, ListAllClusters and /healthz under
# load, and a SIGTERM in the middle of a load run: wrk's numbers, the exit
# code, and whether every request the server handled was answered.
#
#   bench/load.sh                      # 10 s per run, 2 threads, 32 connections
#   DURATION=30s CONNECTIONS=64 bench/load.sh
set -euo pipefail

cd "$(dirname "$0")/.."
DURATION=${DURATION:-10s}
THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-32}
WORK=$(mktemp -d)
CORRAL_PID=""
TASK_PID=""

for tool in wrk curl deno; do
  command -v "$tool" >/dev/null || {
    echo "bench/load.sh needs $tool" >&2
    exit 2
  }
done

cleanup() {
  # Only the processes this script started, by their ids.
  [[ -n "$CORRAL_PID" ]] && kill "$CORRAL_PID" 2>/dev/null || true
  [[ -n "$TASK_PID" ]] && wait "$TASK_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() {
  deno eval 'const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    console.log((l.addr as Deno.NetAddr).port); l.close();'
}

# Starts `deno task dev` on free ports; sets HTTP, CORRAL_PID and TASK_PID.
start_corral() {
  local log=$1
  shift
  local http_port grpc_port
  http_port=$(free_port)
  grpc_port=$(free_port)
  # One load generator is one caller: fair use would measure itself.
  deno task dev --http-port "$http_port" --grpc-port "$grpc_port" \
    --rate-limit 0 --max-watches-per-user 0 "$@" \
    2>"$log" >/dev/null &
  TASK_PID=$!
  HTTP="http://127.0.0.1:$http_port"
  for _ in $(seq 1 300); do
    if curl -sf "$HTTP/healthz" >/dev/null 2>&1; then break; fi
    sleep 0.1
  done
  curl -sf "$HTTP/healthz" >/dev/null || {
    echo "Corral did not start:" >&2
    cat "$log" >&2
    exit 1
  }
  # deno task runs main.ts as its child: that is the process to signal.
  CORRAL_PID=$(pgrep -P "$TASK_PID" -f main.ts | head -1)
  [[ -n "$CORRAL_PID" ]] || CORRAL_PID=$TASK_PID
}

stop_corral() {
  kill -TERM "$CORRAL_PID"
  local code=0
  wait "$TASK_PID" || code=$?
  CORRAL_PID=""
  TASK_PID=""
  return "$code"
}

create_fixtures() {
  curl -sf -X POST "$HTTP/apis/v1/namespaces/team-a/compute_templates" \
    -d '{"name": "small", "cpu": 2, "memory": 4}' >/dev/null
  curl -sf -X POST "$HTTP/apis/v1alpha2/namespaces/team-a/clusters" -d '{
    "name": "blue", "user": "ada", "version": "2.9.0",
    "clusterSpec": {
      "headGroupSpec": {"computeTemplate": "small", "serviceType": "NodePort"},
      "workerGroupSpec": [{"groupName": "workers", "computeTemplate": "small",
                           "replicas": 2, "minReplicas": 0, "maxReplicas": 4}]
    }
  }' >/dev/null
}

run_wrk() {
  local name=$1 url=$2
  echo "== $name: wrk -t$THREADS -c$CONNECTIONS -d$DURATION $url"
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$url" |
    grep -E 'Latency|50%|99%|requests in|Requests/sec|Non-2xx|Socket errors'
  echo
}

echo "deno $(deno --version | head -1 | cut -d' ' -f2), $(nproc) cores, $(uname -sr)"
echo

# --- Throughput -------------------------------------------------------------
start_corral "$WORK/corral.log" --log-level warn
create_fixtures
run_wrk "GetCluster" "$HTTP/apis/v1alpha2/namespaces/team-a/clusters/blue"
run_wrk "ListAllClusters" "$HTTP/apis/v1alpha2/clusters"
run_wrk "healthz" "$HTTP/healthz"
stop_corral

# --- SIGTERM under load -----------------------------------------------------
# Info logging: one "Handled request" line per request, to count what the
# server handled against what wrk got back.
start_corral "$WORK/sigterm.log" --shutdown-grace 10s
create_fixtures
before=$(grep -c '"Handled request"' "$WORK/sigterm.log" || true)
echo "== SIGTERM under load: wrk -t$THREADS -c$CONNECTIONS -d8s GetCluster, SIGTERM after 3 s"
wrk -t"$THREADS" -c"$CONNECTIONS" -d8s \
  "$HTTP/apis/v1alpha2/namespaces/team-a/clusters/blue" >"$WORK/wrk.txt" &
WRK_PID=$!
sleep 3
signalled=$(date +%s.%N)
code=0
stop_corral || code=$?
stopped=$(date +%s.%N)
wait "$WRK_PID"
grep -E 'requests in|Requests/sec|Non-2xx|Socket errors' "$WORK/wrk.txt"
answered=$(sed -nE 's/^ *([0-9]+) requests in.*/\1/p' "$WORK/wrk.txt")
handled=$(($(grep -c '"Handled request"' "$WORK/sigterm.log") - before))
non2xx=$(sed -nE 's/.*Non-2xx or 3xx responses: ([0-9]+).*/\1/p' "$WORK/wrk.txt")
printf 'exit code %s, %.2f s from SIGTERM to exit\n' "$code" \
  "$(echo "$stopped - $signalled" | bc)"
echo "server handled $handled requests; wrk received $answered complete responses (${non2xx:-0} not 2xx)"
grep -E '"msg":"(Stopping|Stopped)"' "$WORK/sigterm.log"
if [[ "$code" != 0 || "$handled" != "$answered" || -n "$non2xx" ]]; then
  echo "FAIL: a request the server handled was not answered, or the exit code is not 0"
  exit 1
fi
echo "OK: every request the server handled was answered; exit code 0"
