"""A context's sign-in (`corral login`): its ID token while fresh, else
one refreshed at the issuer with the kept refresh token and saved back
into the config file, as the command line does it (cli/sso_tokens.ts).
Signing in itself is the command line's: `corral login`."""

from __future__ import annotations

import base64
import json
import os
import time
from typing import Any, Callable, Optional

import requests
import yaml

#: An ID token this close to its expiry is refreshed first (seconds).
REFRESH_BEFORE = 60.0


class SignInError(ValueError):
    """The context's sign-in cannot give a token: sign in again."""


def expiry_of(id_token: str) -> Optional[float]:
    """The `exp` of a JWT's payload (seconds), or None."""
    parts = id_token.split(".")
    if len(parts) != 3:
        return None
    try:
        padded = parts[1] + "=" * (-len(parts[1]) % 4)
        exp = json.loads(base64.urlsafe_b64decode(padded)).get("exp")
    except (ValueError, AttributeError):
        return None
    return float(exp) if isinstance(exp, (int, float)) else None


def current_id_token(
    context: dict[str, Any],
    path: str,
    now: Callable[[], float] = time.time,
) -> Optional[str]:
    """The ID token of `context`'s sign-in (refreshed and saved to `path`
    when about to expire); None for a context without one."""
    sign_in = context.get("signIn")
    if not isinstance(sign_in, dict) or not sign_in.get("idToken"):
        return None
    token = str(sign_in["idToken"])
    expiry = expiry_of(token)
    if expiry is None or expiry - now() > REFRESH_BEFORE:
        return token
    name = context.get("name")
    if not sign_in.get("refreshToken"):
        raise SignInError(f"the sign-in of context {name!r} has expired: run `corral login` again")
    refreshed = refresh(sign_in, name)
    sign_in.update(refreshed)
    save_sign_in(path, str(name), sign_in)
    return str(sign_in["idToken"])


def refresh(sign_in: dict[str, Any], name: Any) -> dict[str, str]:
    """New tokens for `sign_in` from its issuer's token endpoint."""
    verify: Any = sign_in.get("issuerCertificateAuthority") or True
    issuer = str(sign_in["issuerUrl"]).rstrip("/")
    metadata = requests.get(f"{issuer}/.well-known/openid-configuration", verify=verify, timeout=30)
    metadata.raise_for_status()
    answer = requests.post(
        metadata.json()["token_endpoint"],
        data={
            "grant_type": "refresh_token",
            "refresh_token": sign_in["refreshToken"],
            "client_id": sign_in["clientId"],
        },
        verify=verify,
        timeout=30,
    )
    tokens = answer.json() if answer.content else {}
    if answer.status_code != 200 or not tokens.get("id_token"):
        reason = tokens.get("error_description") or tokens.get("error") or f"HTTP {answer.status_code}"
        raise SignInError(f"the sign-in of context {name!r} could not be refreshed ({reason}): run `corral login` again")
    kept = {"idToken": str(tokens["id_token"])}
    if tokens.get("refresh_token"):
        kept["refreshToken"] = str(tokens["refresh_token"])
    return kept


def save_sign_in(path: str, name: str, sign_in: dict[str, Any]) -> None:
    """Writes `sign_in` into the context `name` of the file at `path`,
    the rest of the file as it is, readable by its owner only."""
    with open(path, encoding="utf-8") as file:
        config = yaml.safe_load(file) or {}
    for context in config.get("contexts") or []:
        if isinstance(context, dict) and context.get("name") == name:
            context["signIn"] = sign_in
    temporary = f"{path}.tmp"
    with open(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8") as file:
        yaml.safe_dump(config, file, sort_keys=False)
    os.replace(temporary, path)
