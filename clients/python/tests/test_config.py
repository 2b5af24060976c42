"""Client() finds its server and credentials where the CLI does: the
argument, else the environment, else the config file's context, else dev
mode's defaults."""

from __future__ import annotations

import base64
import json
import os
import tempfile
import time
import unittest

import yaml

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


def jwt(exp: float) -> str:
    """An unsigned JWT with `exp`: what the client reads of an ID token."""
    def part(value: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")
    return f"{part({'alg': 'none'})}.{part({'exp': exp})}.sig"


class SignInTest(unittest.TestCase):
    """A context `corral login` signed in: its ID token, refreshed at the
    issuer when about to expire, and saved back, as the CLI does."""

    def write(self, sign_in: dict[str, object]) -> str:
        directory = tempfile.TemporaryDirectory()
        self.addCleanup(directory.cleanup)
        path = os.path.join(directory.name, "config.yaml")
        with open(path, "w", encoding="utf-8") as file:
            yaml.safe_dump({"currentContext": "sso", "contexts": [
                {"name": "sso", "server": "https://corral.example.com", "signIn": sign_in},
            ]}, file)
        return path

    def test_a_fresh_id_token_is_sent_as_it_is(self) -> None:
        token = jwt(time.time() + 3600)
        path = self.write({"issuerUrl": "https://issuer.example.com", "clientId": "corral", "idToken": token})
        client = corral.Client(env={"CORRAL_CONFIG": path})
        client.close()
        self.assertEqual(client.connection.token, token)

    def test_a_token_given_comes_before_the_sign_in(self) -> None:
        path = self.write({"issuerUrl": "https://issuer.example.com", "clientId": "corral",
                           "idToken": jwt(time.time() + 3600)})
        client = corral.Client(env={"CORRAL_CONFIG": path, "CORRAL_TOKEN": "given"})
        client.close()
        self.assertEqual(client.connection.token, "given")

    def test_an_expiring_id_token_is_refreshed_at_the_issuer_and_saved(self) -> None:
        fresh = jwt(time.time() + 3600)
        with FakeCorral() as issuer:
            issuer.route("GET", "/.well-known/openid-configuration",
                         lambda _: (200, {"issuer": issuer.url, "token_endpoint": f"{issuer.url}/token"}))
            issuer.route("POST", "/token", lambda _: (200, {"id_token": fresh, "refresh_token": "r2"}))
            path = self.write({"issuerUrl": issuer.url, "clientId": "corral",
                               "idToken": jwt(time.time() + 10), "refreshToken": "r1"})
            client = corral.Client(env={"CORRAL_CONFIG": path})
            client.close()
            self.assertEqual(client.connection.token, fresh)
            grant = issuer.requests[-1].body
            self.assertEqual(grant, {"grant_type": "refresh_token", "refresh_token": "r1", "client_id": "corral"})
        with open(path, encoding="utf-8") as file:
            kept = yaml.safe_load(file)["contexts"][0]["signIn"]
        self.assertEqual((kept["idToken"], kept["refreshToken"]), (fresh, "r2"))
        self.assertEqual(os.stat(path).st_mode & 0o777, 0o600)

    def test_an_expired_sign_in_without_a_refresh_token_says_to_sign_in_again(self) -> None:
        path = self.write({"issuerUrl": "https://issuer.example.com", "clientId": "corral",
                           "idToken": jwt(time.time() - 10)})
        with self.assertRaisesRegex(corral.ConfigError, "corral login"):
            corral.Client(env={"CORRAL_CONFIG": path})


if __name__ == "__main__":
    unittest.main()
