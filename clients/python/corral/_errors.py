"""What can go wrong in a call, as exceptions.

CorralError is Corral's own answer: the gRPC status code (number and
name), the message and the details of its error body, which are the same
on the HTTP and gRPC transports, and the HTTP status it came with. Code
branches on `code` (or on the subclasses of the common ones); a person
reads `str(error)`. UnreachableError is the other kind: nothing answered.
"""

from __future__ import annotations

from typing import Any

# gRPC's status codes, which Corral's error bodies carry.
CODE_NAMES = (
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
    "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
    "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
)


def code_name(code: int) -> str:
    """The name of a gRPC status code, "UNKNOWN" for a number outside them."""
    return CODE_NAMES[code] if 0 <= code < len(CODE_NAMES) else "UNKNOWN"


class CorralError(Exception):
    """Corral answered with an error: its code, message and details."""

    def __init__(
        self,
        code: int,
        message: str,
        details: list[dict[str, Any]] | None = None,
        status: int | None = None,
    ) -> None:
        super().__init__(f"{code_name(code)} ({code}): {message}")
        self.code = code
        self.code_name = code_name(code)
        self.message = message
        self.details = details or []
        #: The HTTP status, or None for an error inside a stream (status 200).
        self.status = status

    @property
    def field_violations(self) -> list[dict[str, str]]:
        """Each `{field, description}` of a google.rpc.BadRequest detail."""
        return [
            violation
            for detail in self.details
            for violation in detail.get("fieldViolations", [])
        ]


class NotFoundError(CorralError):
    """Code 5 NOT_FOUND: no such object."""


class AlreadyExistsError(CorralError):
    """Code 6 ALREADY_EXISTS: an object of that name is there already."""


class InvalidArgumentError(CorralError):
    """Code 3 INVALID_ARGUMENT: see `field_violations`."""


class PermissionDeniedError(CorralError):
    """Code 7 PERMISSION_DENIED: the policy does not allow the call."""


class UnauthenticatedError(CorralError):
    """Code 16 UNAUTHENTICATED: no token, or one Corral does not accept."""


class WaitTimeout(CorralError, TimeoutError):
    """A wait ran out of time (code 4 DEADLINE_EXCEEDED, raised here)."""

    def __init__(self, message: str, last: dict[str, Any] | None = None) -> None:
        super().__init__(4, message)
        #: The object as it was last seen, if it was seen at all.
        self.last = last


class UnreachableError(ConnectionError):
    """Nothing answered at the server's address (or TLS failed)."""

    def __init__(self, server: str, reason: str) -> None:
        super().__init__(
            f"cannot reach Corral at {server}: {reason} "
            "(name another server with Client(server=...), CORRAL_SERVER "
            "or the config file's context)"
        )
        self.server = server
        self.reason = reason


_BY_CODE: dict[int, type[CorralError]] = {
    3: InvalidArgumentError,
    5: NotFoundError,
    6: AlreadyExistsError,
    7: PermissionDeniedError,
    16: UnauthenticatedError,
}


def error_from_body(body: Any, status: int | None) -> CorralError:
    """The exception of an error body `{code, message, details}`.

    A body that is not Corral's (a proxy's page, say) becomes UNKNOWN (or
    UNAUTHENTICATED for a 401) with the HTTP status in its message.
    """
    if isinstance(body, dict) and isinstance(body.get("code"), int):
        code = body["code"]
        message = str(body.get("message") or f"HTTP {status}")
        details = body.get("details") if isinstance(body.get("details"), list) else []
    else:
        code = 16 if status == 401 else 2
        message = f"HTTP {status}" + (f": {body}" if isinstance(body, str) and body else "")
        details = []
    return _BY_CODE.get(code, CorralError)(code, message, details, status)
