"""Following a log stream of Corral's (a submission's, a RayJob's): each
answer says what was printed, and a stream Corral ends early (its
--watch-max-duration) is followed again, the new one starting with the
whole log, of which only what was not given yet is given."""

from __future__ import annotations

from typing import Callable, Iterator, Optional

import requests

from ._errors import WaitTimeout
from ._http import Transport

#: Seconds before following again a log stream Corral ended early.
RESUME_DELAY = 0.5


def follow_log(
    transport: Transport,
    path: str,
    ended: Callable[[str], bool],
    what: str,
    timeout: Optional[float],
    clock: Callable[[], float],
    sleep: Callable[[float], None],
) -> Iterator[str]:
    """The log at `path`, piece by piece, until a stream ends and `ended`
    (given the last `status` the stream said, "" for none) says the job has.
    Raises WaitTimeout naming `what` when `timeout` seconds pass first."""
    deadline = None if timeout is None else clock() + timeout
    given = 0
    while True:
        seen = 0
        status = ""
        remaining = None if deadline is None else max(deadline - clock(), 0.001)
        finished = False
        try:
            for chunk in transport.lines(path, read_timeout=remaining):
                log = str(chunk.get("log") or "")
                fresh = log[max(0, given - seen):]
                seen += len(log)
                if fresh:
                    given += len(fresh)
                    yield fresh
                status = str(chunk.get("status") or status)
            finished = True
        except requests.ReadTimeout:
            pass  # the deadline, judged below
        if finished and ended(status):
            return
        if deadline is not None and clock() >= deadline:
            raise WaitTimeout(f"{what}: not ended after {timeout:g}s")
        sleep(RESUME_DELAY)
