"""What the SDK's tests share: a client of a FakeCorral that reads no
environment and no config file but what the test gives it."""

from __future__ import annotations

import os
import tempfile
from typing import Any

import corral

from .fake_corral import FakeClock, FakeCorral


def isolated_env(**values: str) -> dict[str, str]:
    """An environment whose config file is absent unless given."""
    missing = os.path.join(tempfile.gettempdir(), "corral-sdk-tests-no-such-config.yaml")
    return {"CORRAL_CONFIG": missing, **values}


def client_of(fake: FakeCorral, clock: FakeClock | None = None, **kwargs: Any) -> corral.Client:
    clock = clock or FakeClock()
    return corral.Client(
        server=fake.url,
        env=isolated_env(),
        clock=clock,
        sleep=clock.sleep,
        **kwargs,
    )
