"""The waits: a cluster until ready or gone, a RayJob until it has
finished, a submission until it has ended; each with a timeout measured
by the client's clock (a FakeClock here, so no test waits in real time)."""

from __future__ import annotations

import unittest
from typing import Any

import corral

from .fake_corral import FakeClock, FakeCorral, Stream
from .support import client_of

WATCH = "/apis/v1alpha2/watch/namespaces/default/clusters"
JOBS_WATCH = "/apis/v1alpha2/watch/namespaces/default/jobs"


def change(kind: str, state: str = "", version: str = "1", **extra: Any) -> dict[str, Any]:
    cluster = {"name": "blue", "namespace": "default", "clusterState": state, **extra}
    return {"result": {"type": kind, "cluster": cluster, "resourceVersion": version}}


BOOKMARK = {"result": {"type": "BOOKMARK", "cluster": None, "resourceVersion": "9"}}


class WaitForClusterTest(unittest.TestCase):
    def setUp(self) -> None:
        self.fake = FakeCorral().__enter__()
        self.addCleanup(self.fake.__exit__)
        self.clock = FakeClock()
        self.client = client_of(self.fake, self.clock)
        self.addCleanup(self.client.close)

    def test_it_answers_the_cluster_once_it_is_ready(self) -> None:
        self.fake.answers("GET", WATCH, (200, Stream([
            change("ADDED", "", "1"), BOOKMARK, change("MODIFIED", "ready", "2", clientUrl="ray://blue-head-svc:10001"),
        ])))
        cluster = self.client.wait_for_cluster("blue")
        self.assertEqual(cluster["clientUrl"], "ray://blue-head-svc:10001")
        self.assertEqual(self.fake.requests[0].query, {"name": "blue"})

    def test_a_stream_that_ends_is_taken_up_after_the_last_version_seen(self) -> None:
        self.fake.answers(
            "GET", WATCH,
            (200, Stream([change("ADDED", "", "1"), BOOKMARK, change("MODIFIED", "", "12")])),
            (200, Stream([change("MODIFIED", "ready", "13")])),
        )
        self.assertEqual(self.client.wait_for_cluster("blue")["clusterState"], "ready")
        self.assertEqual([r.query.get("resourceVersion") for r in self.fake.requests], [None, "12"])

    def test_a_failed_cluster_raises_wait_failed_with_the_cluster(self) -> None:
        self.fake.answers("GET", WATCH, (200, Stream([change("ADDED", "failed", "1")])))
        with self.assertRaises(corral.WaitFailed) as raised:
            self.client.wait_for_cluster("blue")
        self.assertEqual(raised.exception.last["clusterState"], "failed")

    def test_a_cluster_that_is_not_there_raises_not_found(self) -> None:
        self.fake.answers("GET", WATCH, (200, Stream([BOOKMARK])))
        with self.assertRaises(corral.NotFoundError):
            self.client.wait_for_cluster("blue")

    def test_until_deleted_answers_none_once_the_cluster_is_gone(self) -> None:
        self.fake.answers("GET", WATCH, (200, Stream([change("ADDED", "ready"), BOOKMARK, change("DELETED", "ready")])))
        self.assertIsNone(self.client.wait_for_cluster("blue", until="deleted"))

    def test_the_timeout_raises_wait_timeout_with_the_cluster_as_last_seen(self) -> None:
        self.clock.step = 10.0  # every reading of the clock is ten seconds on
        self.fake.answers("GET", WATCH, (200, Stream([change("MODIFIED", "", str(n)) for n in range(100)])))
        with self.assertRaises(corral.WaitTimeout) as raised:
            self.client.wait_for_cluster("blue", timeout=30)
        self.assertEqual(raised.exception.code, 4)
        self.assertEqual(raised.exception.last["name"], "blue")
        self.assertIsInstance(raised.exception, TimeoutError)

    def test_a_corral_that_cannot_watch_is_read_every_poll_interval(self) -> None:
        self.fake.answers("GET", WATCH, (501, {"code": 12, "message": "watching needs the cache"}))
        self.fake.answers(
            "GET", "/apis/v1alpha2/namespaces/default/clusters/blue",
            (200, {"name": "blue"}), (200, {"name": "blue"}), (200, {"name": "blue", "clusterState": "ready"}),
        )
        self.assertEqual(self.client.wait_for_cluster("blue")["clusterState"], "ready")
        self.assertEqual(self.clock.slept, [1.0, 1.0])


class WaitForJobTest(unittest.TestCase):
    def setUp(self) -> None:
        self.fake = FakeCorral().__enter__()
        self.addCleanup(self.fake.__exit__)
        self.client = client_of(self.fake)
        self.addCleanup(self.client.close)

    def job(self, kind: str, **fields: str) -> dict[str, Any]:
        return {"result": {"type": kind, "job": {"name": "train", **fields}, "resourceVersion": "1"}}

    def test_it_answers_the_job_once_ray_says_it_ended(self) -> None:
        self.fake.answers("GET", JOBS_WATCH, (200, Stream([
            self.job("ADDED", jobStatus="RUNNING"), self.job("MODIFIED", jobStatus="FAILED", message="exit 1"),
        ])))
        self.assertEqual(self.client.wait_for_job("train")["jobStatus"], "FAILED")

    def test_a_failed_deployment_has_finished_whatever_rays_status(self) -> None:
        self.fake.answers("GET", JOBS_WATCH, (200, Stream([
            self.job("ADDED", jobStatus="RUNNING", jobDeploymentStatus="Failed"),
        ])))
        self.assertEqual(self.client.wait_for_job("train")["jobDeploymentStatus"], "Failed")

    def test_a_job_deleted_meanwhile_raises_not_found(self) -> None:
        self.fake.answers("GET", JOBS_WATCH, (200, Stream([self.job("ADDED", jobStatus="RUNNING"), self.job("DELETED")])))
        with self.assertRaises(corral.NotFoundError):
            self.client.wait_for_job("train")


class WaitForSubmissionTest(unittest.TestCase):
    def test_it_reads_the_submission_until_it_has_ended(self) -> None:
        clock = FakeClock()
        with FakeCorral() as fake, client_of(fake, clock, poll_interval=2.0) as client:
            fake.answers(
                "GET", "/apis/v1alpha2/namespaces/default/jobsubmissions/blue/raysubmit_1",
                (200, {"status": "PENDING"}), (200, {"status": "RUNNING"}), (200, {"status": "SUCCEEDED"}),
            )
            self.assertEqual(client.wait_for_submission("blue", "raysubmit_1")["status"], "SUCCEEDED")
        self.assertEqual(clock.slept, [2.0, 2.0])

    def test_the_timeout_raises_wait_timeout(self) -> None:
        clock = FakeClock()
        with FakeCorral() as fake, client_of(fake, clock, poll_interval=5.0) as client:
            fake.answers("GET", "/apis/v1alpha2/namespaces/default/jobsubmissions/blue/raysubmit_1", (200, {"status": "RUNNING"}))
            with self.assertRaises(corral.WaitTimeout):
                client.wait_for_submission("blue", "raysubmit_1", timeout=12)
        self.assertEqual(clock.slept, [5.0, 5.0, 5.0])


if __name__ == "__main__":
    unittest.main()
