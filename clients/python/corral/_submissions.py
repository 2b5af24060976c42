"""Jobs submitted to a running cluster through its Ray dashboard, as
`corral jobs run` submits them: a working directory zipped and uploaded
(skipped when the cluster has the same package already), the entrypoint
submitted with it, its log read or followed as it grows. Every call needs
the policy verb `proxy` on the cluster.
"""

from __future__ import annotations

import base64
import json
from typing import Any, Callable, Iterator, Mapping, Optional, cast

from ._errors import CorralError, WaitTimeout
from ._follow import follow_log
from ._http import Transport, path_of
from ._models import JobSubmissionInfo
from ._package import package_directory
from ._watching import JOB_ENDED

API = "/apis/v1alpha2"


class Submissions:
    """Submissions to a running cluster, and their logs."""

    _transport: Transport
    namespace: str
    clock: Callable[[], float]
    sleep: Callable[[float], None]
    poll_interval: float

    def _submissions(self, namespace: Optional[str], cluster: str, *rest: str) -> str:
        return path_of(API, "namespaces", namespace or self.namespace, "jobsubmissions", cluster, *rest)

    def upload_working_dir(self, cluster: str, directory: str, namespace: Optional[str] = None) -> str:
        """Zips `directory` (its .gitignore respected) and uploads it to the
        cluster unless the cluster has it already; answers its URI, the
        runtime environment's `working_dir`."""
        package = package_directory(directory)
        ns = namespace or self.namespace
        probe = path_of(API, "namespaces", ns, "clusters", cluster, "dashboard", "api", "packages", "gcs", package.name)
        try:
            self._transport.send("GET", probe).close()
            return package.uri
        except CorralError:
            pass  # not there yet (or refused: the upload says why)
        content = base64.b64encode(package.zip).decode("ascii")
        self._transport.call("PUT", self._submissions(ns, cluster, "packages", package.name), {"content": content})
        return package.uri

    def submit_job(
        self,
        cluster: str,
        entrypoint: str,
        working_dir: Optional[str] = None,
        runtime_env: Optional[Mapping[str, Any]] = None,
        submission_id: Optional[str] = None,
        metadata: Optional[Mapping[str, str]] = None,
        namespace: Optional[str] = None,
    ) -> str:
        """Submits `entrypoint` to running cluster `cluster`, in `working_dir`
        (a local directory, uploaded first) if given; answers the
        submission id (the cluster's `raysubmit_...` unless given)."""
        env = dict(runtime_env or {})
        if working_dir is not None:
            if "working_dir" in env:
                raise ValueError("give the working directory once: working_dir or runtime_env's working_dir")
            env["working_dir"] = self.upload_working_dir(cluster, working_dir, namespace)
        body: dict[str, Any] = {"entrypoint": entrypoint}
        if submission_id:
            body["submissionId"] = submission_id
        if env:
            body["runtimeEnv"] = json.dumps(env)
        if metadata:
            body["metadata"] = dict(metadata)
        reply = self._transport.call("POST", self._submissions(namespace, cluster), body)
        return str(reply.get("submissionId") or submission_id or "")

    def list_submissions(self, cluster: str, namespace: Optional[str] = None) -> list[JobSubmissionInfo]:
        reply = self._transport.call("GET", self._submissions(namespace, cluster))
        return cast("list[JobSubmissionInfo]", reply.get("submissions") or [])

    def get_submission(self, cluster: str, submission_id: str, namespace: Optional[str] = None) -> JobSubmissionInfo:
        path = self._submissions(namespace, cluster, submission_id)
        return cast(JobSubmissionInfo, self._transport.call("GET", path))

    def stop_submission(self, cluster: str, submission_id: str, namespace: Optional[str] = None) -> None:
        self._transport.call("POST", self._submissions(namespace, cluster, submission_id))

    def delete_submission(self, cluster: str, submission_id: str, namespace: Optional[str] = None) -> None:
        self._transport.call("DELETE", self._submissions(namespace, cluster, submission_id))

    def submission_log(self, cluster: str, submission_id: str, namespace: Optional[str] = None) -> str:
        """The submission's log so far."""
        path = self._submissions(namespace, cluster, "log", submission_id)
        return str(self._transport.call("GET", path).get("log") or "")

    def follow_submission_log(
        self,
        cluster: str,
        submission_id: str,
        timeout: Optional[float] = None,
        namespace: Optional[str] = None,
    ) -> Iterator[str]:
        """The submission's log, piece by piece as it grows, until the job
        ends (then get_submission() tells how). A stream Corral ends before
        the job does is followed again without repeating what was given.
        Raises WaitTimeout when `timeout` seconds pass first."""
        path = path_of(
            API, "watch", "namespaces", namespace or self.namespace,
            "jobsubmissions", cluster, "log", submission_id,
        )
        return follow_log(
            self._transport,
            path,
            lambda status: status in JOB_ENDED,
            f"job {submission_id} on cluster {cluster}",
            timeout,
            self.clock,
            self.sleep,
        )

    def wait_for_submission(
        self,
        cluster: str,
        submission_id: str,
        timeout: float = 3600.0,
        namespace: Optional[str] = None,
    ) -> JobSubmissionInfo:
        """Waits until the submission has ended (SUCCEEDED, FAILED or
        STOPPED), reading it every poll_interval seconds; answers it.
        Raises WaitTimeout when `timeout` seconds pass first."""
        deadline = self.clock() + timeout
        while True:
            info = self.get_submission(cluster, submission_id, namespace)
            if info.get("status") in JOB_ENDED:
                return info
            if self.clock() >= deadline:
                raise WaitTimeout(f"job {submission_id} on cluster {cluster}: not ended after {timeout:g}s", dict(info))
            self.sleep(self.poll_interval)
