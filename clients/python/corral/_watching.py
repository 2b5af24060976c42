"""Following clusters and jobs as they change, and waiting for them.

watch_clusters() and watch_jobs() read the watch routes' NDJSON streams:
first each object there is (ADDED) and a BOOKMARK, then each change as it
comes. When Corral ends a stream (its --watch-max-duration), the watch is
taken up again after the last resource version seen, so a caller sees one
unbroken sequence until it stops reading or `timeout` passes.

The waits are built on them: wait_for_cluster() until a cluster is ready
(or gone), wait_for_job() until a RayJob has finished. From a Corral that
cannot watch (one without its cache answers code 12 UNIMPLEMENTED, one
from before the watch routes 404) they read the object every
`poll_interval` seconds instead. Time is the client's `clock`
(time.monotonic unless given), so a test can give its own.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Optional, cast

import requests

from ._errors import CorralError, NotFoundError, WaitTimeout
from ._http import Transport, path_of
from ._models import Cluster, RayJob, WatchClustersResponse, WatchRayJobsResponse

API = "/apis/v1alpha2"

#: Ray's statuses of a job that has ended.
JOB_ENDED = ("SUCCEEDED", "FAILED", "STOPPED")


class WaitFailed(CorralError):
    """What was waited for cannot happen: the cluster failed (code 9
    FAILED_PRECONDITION, raised here); `last` is the object as last seen."""

    def __init__(self, message: str, last: Any) -> None:
        super().__init__(9, message)
        self.last = last


def job_finished(job: RayJob) -> bool:
    """Whether a RayJob has ended: its Ray status, or its deployment Failed
    (a deadline passed, or its submitter failed)."""
    return job.get("jobStatus") in JOB_ENDED or job.get("jobDeploymentStatus") == "Failed"


class Watching:
    """Watches and waits of clusters and RayJobs."""

    _transport: Transport
    namespace: str
    clock: Callable[[], float]
    sleep: Callable[[float], None]
    poll_interval: float

    def _watch(
        self,
        kind: str,
        name: Optional[str],
        namespace: Optional[str],
        all_namespaces: bool,
        timeout: Optional[float],
    ) -> Iterator[dict[str, Any]]:
        if all_namespaces:
            path = path_of(API, "watch", kind)
        else:
            path = path_of(API, "watch", "namespaces", namespace or self.namespace, kind)
        deadline = None if timeout is None else self.clock() + timeout
        version = ""
        while True:
            remaining = None if deadline is None else deadline - self.clock()
            if remaining is not None and remaining <= 0:
                return
            params = {"name": name, "resourceVersion": version}
            try:
                for result in self._transport.lines(path, params, read_timeout=remaining):
                    version = result.get("resourceVersion") or version
                    yield result
                    if deadline is not None and self.clock() >= deadline:
                        return
            except requests.ReadTimeout:
                return  # only with a deadline: nothing came before it
            except requests.exceptions.ChunkedEncodingError:
                pass  # a stream cut short is taken up again, as one Corral ended

    def watch_clusters(
        self,
        name: Optional[str] = None,
        namespace: Optional[str] = None,
        all_namespaces: bool = False,
        timeout: Optional[float] = None,
    ) -> Iterator[WatchClustersResponse]:
        """The namespace's clusters (or one, by name) as they change:
        `{"type": "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK", "cluster": ...,
        "resourceVersion": ...}`, until the caller stops or `timeout` seconds."""
        stream = self._watch("clusters", name, namespace, all_namespaces, timeout)
        return cast("Iterator[WatchClustersResponse]", stream)

    def watch_jobs(
        self,
        name: Optional[str] = None,
        namespace: Optional[str] = None,
        all_namespaces: bool = False,
        timeout: Optional[float] = None,
    ) -> Iterator[WatchRayJobsResponse]:
        """The namespace's RayJobs (or one, by name) as they change, as
        watch_clusters() with `job` in place of `cluster`."""
        stream = self._watch("jobs", name, namespace, all_namespaces, timeout)
        return cast("Iterator[WatchRayJobsResponse]", stream)

    def wait_for_cluster(
        self,
        name: str,
        timeout: float = 600.0,
        until: str = "ready",
        namespace: Optional[str] = None,
    ) -> Optional[Cluster]:
        """Waits until cluster `name` is ready (its clusterState "ready";
        answers it) or, with until="deleted", gone (answers None).

        Raises WaitTimeout when `timeout` seconds pass first, WaitFailed
        when the cluster fails, NotFoundError when it is not there (or goes
        while waiting for it to be ready).
        """
        if until not in ("ready", "deleted"):
            raise ValueError(f'until is "ready" or "deleted", not {until!r}')

        def done(cluster: Optional[Cluster]) -> bool:
            if cluster is None:
                if until == "deleted":
                    return True
                raise NotFoundError(5, f"cluster {self._key(namespace, name)} is not there")
            if until == "ready" and cluster.get("clusterState") == "failed":
                raise WaitFailed(f"cluster {self._key(namespace, name)} failed", cluster)
            return until == "ready" and cluster.get("clusterState") == "ready"

        return self._wait("clusters", "cluster", name, namespace, timeout, done)

    def wait_for_job(self, name: str, timeout: float = 3600.0, namespace: Optional[str] = None) -> RayJob:
        """Waits until RayJob `name` has finished (job_finished()); answers
        it as it ended, whatever its status: look at its `jobStatus`.

        Raises WaitTimeout when `timeout` seconds pass first, NotFoundError
        when the job is not there or is deleted meanwhile.
        """

        def done(job: Optional[RayJob]) -> bool:
            if job is None:
                raise NotFoundError(5, f"job {self._key(namespace, name)} is not there")
            return job_finished(job)

        return cast(RayJob, self._wait("jobs", "job", name, namespace, timeout, done))

    def _key(self, namespace: Optional[str], name: str) -> str:
        return f"{namespace or self.namespace}/{name}"

    def _wait(
        self,
        kind: str,
        field: str,
        name: str,
        namespace: Optional[str],
        timeout: float,
        done: Callable[[Any], bool],
    ) -> Any:
        """The object once `done` holds (None when that is its absence)."""
        deadline = self.clock() + timeout
        last: Any = None
        try:
            for change in self._watch(kind, name, namespace, False, timeout):
                kind_of = change.get("type")
                if kind_of == "BOOKMARK" and last is None:
                    if done(None):
                        return None
                elif kind_of == "DELETED":
                    if done(None):
                        return None
                elif change.get(field):
                    last = change[field]
                    if done(last):
                        return last
        except CorralError as error:
            # A Corral that cannot watch answers the watch route 501 (code
            # 12: no cache) or, from before the route, 404; `done`'s own
            # errors have no HTTP status.
            if error.status is None or error.code not in (5, 12):
                raise
            return self._poll(kind, name, namespace, deadline, done)
        raise WaitTimeout(f"{field} {self._key(namespace, name)}: not done after {timeout:g}s", last)

    def _poll(
        self,
        kind: str,
        name: str,
        namespace: Optional[str],
        deadline: float,
        done: Callable[[Any], bool],
    ) -> Any:
        """As _wait, reading the object every poll_interval seconds."""
        path = path_of(API, "namespaces", namespace or self.namespace, kind, name)
        last: Any = None
        while True:
            try:
                last = self._transport.call("GET", path)
            except NotFoundError:
                if done(None):
                    return None
            else:
                if done(last):
                    return last
            if self.clock() >= deadline:
                raise WaitTimeout(f"{kind[:-1]} {self._key(namespace, name)}: not done in time", last)
            self.sleep(self.poll_interval)
