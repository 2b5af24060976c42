"""Corral's HTTP/JSON API as the client calls it.

One requests.Session per client: JSON in and out, the bearer token on
every request, the server's certificate checked against the connection's
CA (else the system's roots). An error answer becomes a CorralError from
its body; no answer at all, an UnreachableError. Watch routes answer
NDJSON, one `{"result": ...}` or `{"error": ...}` a line, read here as
they arrive.
"""

from __future__ import annotations

import json
from typing import Any, Iterator, Mapping, Optional
from urllib.parse import quote

import requests

from ._config import Connection
from ._errors import CorralError, UnreachableError, error_from_body

#: Seconds to wait for a server to accept a connection.
CONNECT_TIMEOUT = 10.0
#: Seconds to wait for the answer of a call that is not a stream.
READ_TIMEOUT = 60.0


def path_of(*parts: str) -> str:
    """A route from its parts, each but the first escaped as one segment."""
    return "/".join([parts[0], *(quote(part, safe="") for part in parts[1:])])


class Transport:
    """Requests to one Corral with one connection's credentials."""

    def __init__(self, connection: Connection, session: Optional[requests.Session] = None) -> None:
        self.connection = connection
        self.session = session or requests.Session()
        self.session.headers["accept"] = "application/json"
        if connection.token:
            self.session.headers["authorization"] = f"Bearer {connection.token}"
        if connection.certificate_authority:
            self.session.verify = connection.certificate_authority
        if connection.client_certificate and connection.client_key:
            self.session.cert = (connection.client_certificate, connection.client_key)

    def close(self) -> None:
        self.session.close()

    def send(
        self,
        method: str,
        path: str,
        body: Any = None,
        params: Optional[Mapping[str, Any]] = None,
        stream: bool = False,
        read_timeout: Optional[float] = READ_TIMEOUT,
    ) -> requests.Response:
        """The answer to one request; raises CorralError unless it is 2xx."""
        url = self.connection.server + path
        try:
            response = self.session.request(
                method,
                url,
                json=body,
                params={k: v for k, v in (params or {}).items() if v not in (None, "")},
                stream=stream,
                timeout=(CONNECT_TIMEOUT, read_timeout),
            )
        except (requests.ConnectionError, requests.exceptions.SSLError) as error:
            raise UnreachableError(self.connection.server, _reason(error)) from error
        if not response.ok:
            try:
                text = response.text
                raise error_from_body(_json_or_text(text), response.status_code)
            finally:
                response.close()
        return response

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        params: Optional[Mapping[str, Any]] = None,
    ) -> Any:
        """The parsed JSON answer of one request ({} for an empty one)."""
        response = self.send(method, path, body, params)
        return response.json() if response.content else {}

    def lines(
        self,
        path: str,
        params: Optional[Mapping[str, Any]] = None,
        read_timeout: Optional[float] = None,
    ) -> Iterator[dict[str, Any]]:
        """Each `result` of an NDJSON stream until the server ends it.

        `read_timeout` bounds the wait for each line (requests raises
        requests.ReadTimeout when it passes); None waits for ever. An
        `error` line raises its CorralError.
        """
        response = self.send("GET", path, params=params, stream=True, read_timeout=read_timeout)
        with response:
            for line in response.iter_lines():
                if not line:
                    continue
                parsed = json.loads(line)
                if parsed.get("error"):
                    raise error_from_body(parsed["error"], None)
                if "result" in parsed:
                    yield parsed["result"]


def _json_or_text(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text.strip()[:200]


def _reason(error: Exception) -> str:
    """The innermost reason of a requests connection error, shortly."""
    while error.__cause__ is not None or error.__context__ is not None:
        error = error.__cause__ or error.__context__  # type: ignore[assignment]
    args = getattr(error, "args", ())
    return str(args[-1] if args else error) or type(error).__name__


__all__ = ["Transport", "path_of", "CorralError"]
