"""The client: one Corral, one set of credentials, every call."""

from __future__ import annotations

import time
from typing import Callable, Mapping, Optional

import requests

from ._config import Connection, resolve_connection
from ._connect import Connecting
from ._http import Transport
from ._job_logs import JobLogs
from ._resources import Resources
from ._submissions import Submissions
from ._watching import Watching


class Client(Resources, Watching, Submissions, JobLogs, Connecting):
    """A client of Corral's HTTP API.

    Each of `server`, `token`, `namespace`, `certificate_authority`,
    `client_certificate` and `client_key` is taken from the argument, else
    from its environment variable (CORRAL_SERVER, CORRAL_TOKEN,
    CORRAL_NAMESPACE, CORRAL_CA, CORRAL_CLIENT_CERT, CORRAL_CLIENT_KEY),
    else from the config file's context (`context`, else its
    currentContext; the file is $CORRAL_CONFIG or
    ~/.config/corral/config.yaml), else dev mode's defaults
    (http://127.0.0.1:8888, no token, namespace "default").

    `clock` and `sleep` are what the waits measure time with and pause
    with (time.monotonic and time.sleep); `poll_interval` is how many
    seconds apart a wait that cannot watch reads again; `env` is the
    environment read for credentials (os.environ unless given). Use it as
    a context manager, or call close(), to close its connections.
    """

    def __init__(
        self,
        server: Optional[str] = None,
        token: Optional[str] = None,
        namespace: Optional[str] = None,
        certificate_authority: Optional[str] = None,
        client_certificate: Optional[str] = None,
        client_key: Optional[str] = None,
        context: Optional[str] = None,
        *,
        session: Optional[requests.Session] = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        poll_interval: float = 1.0,
        env: Optional[Mapping[str, str]] = None,
    ) -> None:
        self.connection: Connection = resolve_connection(
            {
                "server": server,
                "token": token,
                "namespace": namespace,
                "certificate_authority": certificate_authority,
                "client_certificate": client_certificate,
                "client_key": client_key,
            },
            context,
            env,
        )
        self.namespace = self.connection.namespace
        self.clock = clock
        self.sleep = sleep
        self.poll_interval = poll_interval
        self._transport = Transport(self.connection, session)

    def close(self) -> None:
        self._transport.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Client(server={self.connection.server!r}, namespace={self.namespace!r})"
