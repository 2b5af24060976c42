"""Corral's Python SDK: Ray clusters, jobs and services over Corral's HTTP API.

    import corral
    client = corral.Client()          # credentials as the `corral` CLI finds them
    client.create_cluster({...})
    client.wait_for_cluster("demo")

Requests and answers are the API's JSON as dicts, typed by the TypedDicts
of corral.models; errors are CorralError with Corral's code and message.
See the README for the whole tour.
"""

from . import _models as models
from ._client import Client
from ._config import DEFAULT_NAMESPACE, DEFAULT_SERVER, ConfigError, Connection
from ._errors import (
    AlreadyExistsError,
    CorralError,
    InvalidArgumentError,
    NotFoundError,
    PermissionDeniedError,
    UnauthenticatedError,
    UnreachableError,
    WaitTimeout,
    code_name,
)
from ._package import Package, package_directory
from ._watching import WaitFailed, job_finished

__version__ = "0.3.0"

__all__ = [
    "AlreadyExistsError",
    "Client",
    "ConfigError",
    "Connection",
    "CorralError",
    "DEFAULT_NAMESPACE",
    "DEFAULT_SERVER",
    "InvalidArgumentError",
    "NotFoundError",
    "Package",
    "PermissionDeniedError",
    "UnauthenticatedError",
    "UnreachableError",
    "WaitFailed",
    "WaitTimeout",
    "code_name",
    "job_finished",
    "models",
    "package_directory",
]
