"""Corral's error answers raise CorralError with its code and message."""

from __future__ import annotations

import unittest

import corral

from .fake_corral import FakeCorral, Stream
from .support import client_of, isolated_env

CLUSTER = "/apis/v1alpha2/namespaces/default/clusters/blue"


class ErrorsTest(unittest.TestCase):
    def setUp(self) -> None:
        self.fake = FakeCorral().__enter__()
        self.addCleanup(self.fake.__exit__)
        self.client = client_of(self.fake)
        self.addCleanup(self.client.close)

    def test_an_error_body_is_raised_with_its_code_name_message_and_status(self) -> None:
        self.fake.answers("GET", CLUSTER, (404, {"code": 5, "message": 'Cannot get cluster "default/blue": not found'}))
        with self.assertRaises(corral.NotFoundError) as raised:
            self.client.get_cluster("blue")
        error = raised.exception
        self.assertEqual((error.code, error.code_name, error.status), (5, "NOT_FOUND", 404))
        self.assertEqual(error.message, 'Cannot get cluster "default/blue": not found')
        self.assertIn("NOT_FOUND (5)", str(error))

    def test_an_invalid_request_lists_every_field_violation(self) -> None:
        violations = [
            {"field": "cluster.user", "description": "is required"},
            {"field": "cluster.version", "description": "is required"},
        ]
        self.fake.answers("POST", "/apis/v1alpha2/namespaces/default/clusters", (400, {
            "code": 3,
            "message": "Cannot create cluster: cluster.user: is required; cluster.version: is required",
            "details": [{"@type": "type.googleapis.com/google.rpc.BadRequest", "fieldViolations": violations}],
        }))
        with self.assertRaises(corral.InvalidArgumentError) as raised:
            self.client.create_cluster({"name": "blue"})
        self.assertEqual(raised.exception.field_violations, violations)

    def test_codes_without_a_subclass_are_corral_errors_with_their_code(self) -> None:
        self.fake.answers("DELETE", CLUSTER, (409, {"code": 10, "message": "changed meanwhile"}))
        with self.assertRaises(corral.CorralError) as raised:
            self.client.delete_cluster("blue")
        self.assertEqual((raised.exception.code, raised.exception.code_name), (10, "ABORTED"))

    def test_an_answer_that_is_not_corrals_is_unknown_with_its_http_status(self) -> None:
        self.fake.answers("GET", CLUSTER, (502, b"Bad Gateway"))
        with self.assertRaises(corral.CorralError) as raised:
            self.client.get_cluster("blue")
        self.assertEqual((raised.exception.code, raised.exception.status), (2, 502))
        self.assertIn("HTTP 502: Bad Gateway", raised.exception.message)

    def test_a_401_without_corrals_body_is_unauthenticated(self) -> None:
        self.fake.answers("GET", CLUSTER, (401, b""))
        with self.assertRaises(corral.UnauthenticatedError):
            self.client.get_cluster("blue")

    def test_an_error_inside_a_watch_stream_is_raised(self) -> None:
        self.fake.answers("GET", "/apis/v1alpha2/watch/namespaces/default/clusters", (200, Stream([
            {"error": {"code": 8, "message": "too many watches"}},
        ])))
        with self.assertRaises(corral.CorralError) as raised:
            list(self.client.watch_clusters())
        self.assertEqual((raised.exception.code, raised.exception.status), (8, None))

    def test_a_server_that_is_not_there_is_unreachable_naming_how_to_name_another(self) -> None:
        url = self.fake.url
        self.fake.__exit__()
        client = corral.Client(server=url, env=isolated_env())
        self.addCleanup(client.close)
        with self.assertRaises(corral.UnreachableError) as raised:
            client.whoami()
        self.assertIn(f"cannot reach Corral at {url}", str(raised.exception))
        self.assertIn("CORRAL_SERVER", str(raised.exception))
        self.assertIsInstance(raised.exception, ConnectionError)


if __name__ == "__main__":
    unittest.main()
