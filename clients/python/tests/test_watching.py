"""watch_clusters() and watch_jobs(): the watch routes' NDJSON, one
unbroken sequence across the streams Corral ends, until `timeout`."""

from __future__ import annotations

import unittest
from typing import Any

from .fake_corral import FakeClock, FakeCorral, Stream
from .support import client_of


def cluster(kind: str, name: str, version: str) -> dict[str, Any]:
    return {"result": {"type": kind, "cluster": {"name": name}, "resourceVersion": version}}


class WatchTest(unittest.TestCase):
    def setUp(self) -> None:
        self.fake = FakeCorral().__enter__()
        self.addCleanup(self.fake.__exit__)
        self.clock = FakeClock()
        self.client = client_of(self.fake, self.clock)
        self.addCleanup(self.client.close)

    def test_changes_come_in_order_across_streams_resumed_from_the_last_version(self) -> None:
        watch = "/apis/v1alpha2/watch/namespaces/team-a/clusters"
        self.fake.answers(
            "GET", watch,
            (200, Stream([cluster("ADDED", "a", "1"), {"result": {"type": "BOOKMARK", "cluster": None, "resourceVersion": "5"}}])),
            (200, Stream([cluster("MODIFIED", "a", "6"), cluster("DELETED", "a", "7")])),
        )
        changes = self.client.watch_clusters(namespace="team-a")
        got = [next(changes)["type"] for _ in range(4)]
        changes.close()
        self.assertEqual(got, ["ADDED", "BOOKMARK", "MODIFIED", "DELETED"])
        self.assertEqual([r.query.get("resourceVersion") for r in self.fake.requests[:2]], [None, "5"])

    def test_every_namespace_is_watched_at_the_route_without_one(self) -> None:
        self.fake.answers("GET", "/apis/v1alpha2/watch/jobs", (200, Stream([
            {"result": {"type": "ADDED", "job": {"name": "train", "namespace": "team-b"}, "resourceVersion": "3"}},
        ])))
        changes = self.client.watch_jobs(all_namespaces=True)
        self.assertEqual(next(changes)["job"]["namespace"], "team-b")
        changes.close()

    def test_the_watch_ends_once_its_timeout_has_passed(self) -> None:
        self.clock.step = 1.0
        self.fake.answers("GET", "/apis/v1alpha2/watch/namespaces/default/clusters", (200, Stream([
            cluster("MODIFIED", "a", str(n)) for n in range(50)
        ])))
        got = list(self.client.watch_clusters(timeout=5))
        self.assertLess(len(got), 5)
        self.assertGreater(len(got), 0)


if __name__ == "__main__":
    unittest.main()
