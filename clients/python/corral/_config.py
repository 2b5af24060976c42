"""Where a client finds its server and credentials: as the command line.

Each part is taken from the argument given to Client(), else from its
environment variable (CORRAL_SERVER, CORRAL_TOKEN, CORRAL_CA,
CORRAL_CLIENT_CERT, CORRAL_CLIENT_KEY, CORRAL_NAMESPACE), else from a
context of the config file (`$CORRAL_CONFIG`, else
`~/.config/corral/config.yaml`, the file `corral config set-context`
writes): the one named by `context=`, else the file's currentContext; a
context signed in with `corral login` gives its ID token, refreshed at the
issuer (and saved back) when it is about to expire.
What none of them gives is dev mode's: http://127.0.0.1:8888, no token,
namespace "default".
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Mapping, Optional

import yaml

from ._sign_in import SignInError, current_id_token

#: What `deno task dev` serves.
DEFAULT_SERVER = "http://127.0.0.1:8888"
DEFAULT_NAMESPACE = "default"


class ConfigError(ValueError):
    """The config file, or a context it should hold, cannot be used."""


@dataclass(frozen=True)
class Connection:
    """Where requests go and what they carry."""

    server: str
    namespace: str
    token: Optional[str] = None
    #: Path of a PEM file of the CA that signed the server's certificate.
    certificate_authority: Optional[str] = None
    #: Paths of a PEM client certificate and its key, for a Corral that asks.
    client_certificate: Optional[str] = None
    client_key: Optional[str] = None


def config_path(env: Mapping[str, str]) -> str:
    """$CORRAL_CONFIG, else ~/.config/corral/config.yaml."""
    explicit = env.get("CORRAL_CONFIG")
    if explicit:
        return explicit
    home = env.get("HOME") or env.get("USERPROFILE") or os.path.expanduser("~")
    return os.path.join(home, ".config", "corral", "config.yaml")


def load_config(path: str) -> dict[str, Any]:
    """The config file's mapping; an absent file is an empty config."""
    try:
        with open(path, encoding="utf-8") as file:
            parsed = yaml.safe_load(file) or {}
    except FileNotFoundError:
        return {"contexts": []}
    except (OSError, yaml.YAMLError) as error:
        raise ConfigError(f"cannot read config file {path}: {error}") from error
    if not isinstance(parsed, dict) or not isinstance(parsed.get("contexts", []), list):
        raise ConfigError(f"config file {path}: is not a mapping with a list of contexts")
    return parsed


def find_context(config: dict[str, Any], name: Optional[str], path: str) -> dict[str, Any]:
    """The context called `name` (none when `name` is None)."""
    if name is None:
        return {}
    for context in config.get("contexts") or []:
        if isinstance(context, dict) and context.get("name") == name:
            return context
    names = ", ".join(str(c.get("name")) for c in config.get("contexts") or []) or "(none)"
    raise ConfigError(f"config file {path}: no context named {name!r} (contexts: {names})")


def resolve_connection(
    explicit: Mapping[str, Optional[str]],
    context: Optional[str] = None,
    env: Optional[Mapping[str, str]] = None,
) -> Connection:
    """The connection of `explicit` arguments, then `env`, then the context.

    `explicit` holds the Connection's field names; `env` is os.environ
    unless given (tests give theirs).
    """
    env = os.environ if env is None else env
    path = config_path(env)
    config = load_config(path)
    chosen = find_context(config, context or config.get("currentContext"), path)

    def pick(field: str, variable: str, key: str) -> Optional[str]:
        value = explicit.get(field) or env.get(variable) or chosen.get(key)
        return str(value) if value else None

    # A context signed in with `corral login` gives its ID token, unless a
    # token is given (or the context has a static one).
    token = pick("token", "CORRAL_TOKEN", "token")
    if token is None:
        try:
            token = current_id_token(chosen, path)
        except SignInError as error:
            raise ConfigError(str(error)) from error
    return Connection(
        server=(pick("server", "CORRAL_SERVER", "server") or DEFAULT_SERVER).rstrip("/"),
        namespace=pick("namespace", "CORRAL_NAMESPACE", "namespace") or DEFAULT_NAMESPACE,
        token=token,
        certificate_authority=pick("certificate_authority", "CORRAL_CA", "certificateAuthority"),
        client_certificate=pick("client_certificate", "CORRAL_CLIENT_CERT", "clientCertificate"),
        client_key=pick("client_key", "CORRAL_CLIENT_KEY", "clientKey"),
    )
