"""A working directory as a job package, as the command line makes one.

Every file under the directory, paths relative to it, in a zip archive
named `_ray_pkg_<hash>.zip` after a hash of the files' paths and contents
(the same hash as `corral jobs submit --working-dir`), so the same
directory is the same package and an upload the cluster has already seen
is skipped. Left out as Ray's job client leaves them out: `.git/`, what
the directory's `.gitignore` files ignore (each for its own directory and
below, the last matching line winning, `!` re-including), symbolic links.
A package over MAX_PACKAGE_BYTES is refused before anything is sent.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import time
import zipfile
from dataclasses import dataclass

#: Ray refuses working directories over 100 MiB by default; so does this.
MAX_PACKAGE_BYTES = 100 * 1024 * 1024


@dataclass(frozen=True)
class Package:
    """A zipped working directory and the name it is uploaded as."""

    #: `_ray_pkg_<32 hex digits>.zip`.
    name: str
    zip: bytes
    files: list[str]

    @property
    def uri(self) -> str:
        """`gcs://<name>`, the runtime environment's `working_dir`."""
        return f"gcs://{self.name}"


@dataclass(frozen=True)
class _Rule:
    pattern: re.Pattern[str]
    negated: bool
    directory_only: bool
    #: The `.gitignore`'s directory relative to the root, "" for the root.
    base: str


def package_directory(directory: str) -> Package:
    """Reads, filters and zips `directory`; ValueError when it cannot."""
    if not os.path.isdir(directory):
        raise ValueError(f"working directory {directory} is not a directory")
    files: list[tuple[str, str]] = []
    _collect(directory, "", [], files)
    files.sort()
    digest = hashlib.sha256()
    buffer = io.BytesIO()
    total = 0
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for relative, full in files:
            with open(full, "rb") as file:
                data = file.read()
            total += len(data)
            if total > MAX_PACKAGE_BYTES:
                raise ValueError(_too_large(directory, total))
            name = relative.encode("utf-8")
            digest.update(len(name).to_bytes(8, "big") + name)
            digest.update(len(data).to_bytes(8, "big") + data)
            # Zip times start in 1980; an older file is dated then.
            modified = max(time.localtime(os.stat(full).st_mtime)[:6], (1980, 1, 1, 0, 0, 0))
            entry = zipfile.ZipInfo(relative, modified)
            entry.external_attr = 0o100644 << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, data)
    data = buffer.getvalue()
    if len(data) > MAX_PACKAGE_BYTES:
        raise ValueError(_too_large(directory, len(data)))
    name = f"_ray_pkg_{digest.hexdigest()[:32]}.zip"
    return Package(name=name, zip=data, files=[relative for relative, _ in files])


def _too_large(directory: str, size: int) -> str:
    return (
        f"working directory {directory} is too large: {size} bytes, at most "
        f"{MAX_PACKAGE_BYTES} (leave large files out with a .gitignore in it)"
    )


def _collect(root: str, relative: str, inherited: list[_Rule], files: list[tuple[str, str]]) -> None:
    here = os.path.join(root, relative) if relative else root
    rules = inherited + _gitignore_rules(here, relative)
    for entry in sorted(os.scandir(here), key=lambda e: e.name):
        path = f"{relative}/{entry.name}" if relative else entry.name
        if entry.is_symlink() or (entry.is_dir() and entry.name == ".git"):
            continue
        is_dir = entry.is_dir()
        if is_ignored(rules, path, is_dir):
            continue
        if is_dir:
            _collect(root, path, rules, files)
        else:
            files.append((path, entry.path))


def _gitignore_rules(directory: str, base: str) -> list[_Rule]:
    try:
        with open(os.path.join(directory, ".gitignore"), encoding="utf-8") as file:
            return parse_gitignore(file.read(), base)
    except OSError:
        return []


def parse_gitignore(text: str, base: str = "") -> list[_Rule]:
    """A `.gitignore`'s rules, read as git reads them (and as the CLI does)."""
    rules = []
    for raw in text.splitlines():
        line = re.sub(r"(?<!\\)\s+$", "", raw)
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        line = line[1:] if negated else line
        directory_only = line.endswith("/")
        line = line[:-1] if directory_only else line
        anchored = "/" in line
        line = line[1:] if line.startswith("/") else line
        if not line:
            continue
        body = _glob_source(line)
        pattern = re.compile(f"^{body}$" if anchored else f"^(?:.*/)?{body}$")
        rules.append(_Rule(pattern, negated, directory_only, base))
    return rules


def _glob_source(glob: str) -> str:
    """A gitignore glob as a regular expression's source."""
    source = ""
    i = 0
    while i < len(glob):
        c = glob[i]
        if glob.startswith("**/", i):
            source += "(?:.*/)?"
            i += 2
        elif glob.startswith("/**", i) and i + 3 == len(glob):
            source += "/.*"
            i += 2
        elif c == "*":
            source += "[^/]*"
        elif c == "?":
            source += "[^/]"
        elif c == "[" and glob.find("]", i + 1) != -1:
            end = glob.find("]", i + 1)
            inside = glob[i + 1:end]
            source += "[" + ("^" + inside[1:] if inside.startswith("!") else inside) + "]"
            i = end
        elif c == "\\" and i + 1 < len(glob):
            i += 1
            source += re.escape(glob[i])
        else:
            source += re.escape(c)
        i += 1
    return source


def is_ignored(rules: list[_Rule], path: str, is_dir: bool) -> bool:
    """Whether `path` (relative to the root) is ignored: the last match decides."""
    ignored = False
    for rule in rules:
        if rule.directory_only and not is_dir:
            continue
        if rule.base and not path.startswith(f"{rule.base}/"):
            continue
        local = path[len(rule.base) + 1:] if rule.base else path
        if rule.pattern.match(local):
            ignored = not rule.negated
    return ignored
