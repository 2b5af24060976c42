"""A RayJob's own log: what its submitter printed (the entrypoint's
output), kept for as long as the RayJob is, after its cluster is gone."""

from __future__ import annotations

from typing import Any, Callable, Iterator, Optional

from ._follow import follow_log
from ._http import Transport, path_of
from ._watching import job_finished

API = "/apis/v1alpha2"

class JobLogs:
    """job_log() and follow_job_log()."""

    _transport: Transport
    namespace: str
    clock: Callable[[], float]
    sleep: Callable[[float], None]

    def job_log(self, name: str, tail_lines: int = 0, namespace: Optional[str] = None) -> str:
        """The RayJob's log so far (its last `tail_lines` lines, if given).
        Raises FailedPreconditionError while its submitter has not started."""
        path = path_of(API, "namespaces", namespace or self.namespace, "jobs", name, "log")
        params = {"tailLines": tail_lines} if tail_lines else None
        return str(self._transport.call("GET", path, params=params).get("log") or "")

    def follow_job_log(
        self,
        name: str,
        timeout: Optional[float] = None,
        namespace: Optional[str] = None,
    ) -> Iterator[str]:
        """The RayJob's log, piece by piece as it is printed, until its
        submitter ends (then get_job() tells how the job ended). A stream
        Corral ends before that is followed again without repeating what
        was given. Raises WaitTimeout when `timeout` seconds pass first."""
        ns = namespace or self.namespace
        path = path_of(API, "watch", "namespaces", ns, "jobs", name, "log")
        return follow_log(
            self._transport,
            path,
            lambda _: self._job_ended(ns, name),
            f"job {name}'s log",
            timeout,
            self.clock,
            self.sleep,
        )

    def _job_ended(self, namespace: str, name: str) -> bool:
        job: Any = self._transport.call("GET", path_of(API, "namespaces", namespace, "jobs", name))
        return job_finished(job)
