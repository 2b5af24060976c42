"""Client() finds its server and credentials where the CLI does: the
argument, else the environment, else the config file's context, else dev
mode's defaults."""

from __future__ import annotations

import os
import tempfile
import unittest

import corral

from .fake_corral import FakeCorral
from .support import isolated_env

CONFIG = """
currentContext: prod
contexts:
  - name: prod
    server: https://corral.example.com
    token: prod-token
    namespace: team-prod
    certificateAuthority: /etc/corral/ca.pem
  - name: staging
    server: https://staging.example.com/
    token: staging-token
"""


class CredentialsTest(unittest.TestCase):
    def setUp(self) -> None:
        directory = tempfile.TemporaryDirectory()
        self.addCleanup(directory.cleanup)
        self.config = os.path.join(directory.name, "config.yaml")
        with open(self.config, "w", encoding="utf-8") as file:
            file.write(CONFIG)

    def connection(self, env: dict[str, str], **kwargs: str) -> corral.Connection:
        client = corral.Client(env=env, **kwargs)
        client.close()
        return client.connection

    def test_without_anything_it_is_dev_mode(self) -> None:
        got = self.connection(isolated_env())
        self.assertEqual(got, corral.Connection(server="http://127.0.0.1:8888", namespace="default"))

    def test_the_config_files_current_context_is_used(self) -> None:
        got = self.connection({"CORRAL_CONFIG": self.config})
        self.assertEqual((got.server, got.token, got.namespace), ("https://corral.example.com", "prod-token", "team-prod"))
        self.assertEqual(got.certificate_authority, "/etc/corral/ca.pem")

    def test_a_named_context_replaces_the_current_one(self) -> None:
        got = self.connection({"CORRAL_CONFIG": self.config}, context="staging")
        self.assertEqual((got.server, got.token, got.namespace), ("https://staging.example.com", "staging-token", "default"))

    def test_the_environment_comes_before_the_context(self) -> None:
        env = {
            "CORRAL_CONFIG": self.config,
            "CORRAL_SERVER": "http://env.example.com",
            "CORRAL_TOKEN": "env-token",
            "CORRAL_NAMESPACE": "team-env",
            "CORRAL_CA": "/env/ca.pem",
        }
        got = self.connection(env)
        self.assertEqual(
            (got.server, got.token, got.namespace, got.certificate_authority),
            ("http://env.example.com", "env-token", "team-env", "/env/ca.pem"),
        )

    def test_arguments_come_before_the_environment(self) -> None:
        env = {"CORRAL_CONFIG": self.config, "CORRAL_TOKEN": "env-token", "CORRAL_NAMESPACE": "team-env"}
        got = self.connection(env, token="arg-token", namespace="team-arg")
        self.assertEqual((got.token, got.namespace, got.server), ("arg-token", "team-arg", "https://corral.example.com"))

    def test_a_context_the_file_does_not_have_is_refused_naming_those_it_has(self) -> None:
        with self.assertRaises(corral.ConfigError) as raised:
            self.connection({"CORRAL_CONFIG": self.config}, context="nope")
        self.assertIn("no context named 'nope' (contexts: prod, staging)", str(raised.exception))

    def test_a_config_file_that_is_not_yaml_is_refused(self) -> None:
        with open(self.config, "w", encoding="utf-8") as file:
            file.write("contexts: [unclosed\n")
        with self.assertRaises(corral.ConfigError):
            self.connection({"CORRAL_CONFIG": self.config})

    def test_the_token_is_sent_as_a_bearer_token(self) -> None:
        with FakeCorral() as fake:
            fake.answers("GET", "/apis/v1alpha2/whoami", (200, {"user": "ada", "groups": []}))
            with corral.Client(env=isolated_env(CORRAL_SERVER=fake.url, CORRAL_TOKEN="s3cret")) as client:
                self.assertEqual(client.whoami()["user"], "ada")
        self.assertEqual(fake.requests[0].headers["authorization"], "Bearer s3cret")


if __name__ == "__main__":
    unittest.main()
