"""The build backend of the corral package, written with the standard library.

Why by hand: `pip install ./clients/python` must work without the network.
pip builds a project in an isolated environment holding what
`[build-system] requires` names, and every usual backend (setuptools, flit,
hatchling) would have to be downloaded into it; Debian's python3 packages
do not put one where an isolated build can import it. A backend that needs
nothing but the standard library is named with `requires = []` and found in
this directory (`backend-path`), so the build reaches no index at all.

What it writes is small because the package is: the `corral` directory as
it is (pure Python, `py3-none-any`), and the metadata pip reads (METADATA
from pyproject.toml's [project] table, WHEEL, RECORD with each file's
SHA-256). The PEP 517 hooks build_wheel and build_sdist, and PEP 660's
build_editable (a `.pth` file naming this directory), are all there is.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "corral"
# Zip entries carry this time, so the same sources make the same wheel.
FIXED_TIME = (1980, 1, 1, 0, 0, 0)


def _project() -> dict:
    """pyproject.toml's [project] table."""
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as file:
        data = file.read()
    try:
        import tomllib
    except ImportError:  # Python 3.10: the few kinds of value used here
        return _project_table(data.decode("utf-8"))
    return tomllib.loads(data.decode("utf-8"))["project"]


def _project_table(text: str) -> dict:
    """The [project] table's `key = "string"` and `key = ["list"]` lines."""
    table: dict = {}
    inside = False
    for line in text.splitlines():
        if line.startswith("["):
            inside = line.strip() == "[project]"
            continue
        match = re.match(r'^(\w[\w-]*)\s*=\s*(.+)$', line.strip())
        if inside and match:
            key, value = match.groups()
            strings = re.findall(r'"([^"]*)"', value)
            table[key] = strings if value.startswith("[") else strings[0]
    return table


def _dist_name(project: dict) -> str:
    return re.sub(r"[-_.]+", "_", project["name"]).lower()


def _metadata(project: dict) -> str:
    """Core metadata 2.1, the README as its long description."""
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
        f"Summary: {project.get('description', '')}",
        f"License: {project.get('license', '')}",
        f"Requires-Python: {project.get('requires-python', '>=3')}",
    ]
    lines += [f"Requires-Dist: {dep}" for dep in project.get("dependencies", [])]
    lines.append("Description-Content-Type: text/markdown")
    with open(os.path.join(ROOT, project.get("readme", "README.md")), encoding="utf-8") as file:
        readme = file.read()
    return "\n".join(lines) + "\n\n" + readme


def _package_files() -> list[str]:
    """The package's files, relative to ROOT, in a stable order."""
    found = []
    for directory, dirs, files in os.walk(os.path.join(ROOT, PACKAGE)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if not name.endswith((".pyc", ".pyo")):
                found.append(os.path.relpath(os.path.join(directory, name), ROOT))
    return found


def _hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return f"sha256={digest.decode('ascii')},{len(data)}"


def _write_wheel(directory: str, entries: list[tuple[str, bytes]]) -> str:
    """A wheel of `entries` (path, bytes) and its dist-info; its file name."""
    project = _project()
    dist = _dist_name(project)
    info = f"{dist}-{project['version']}.dist-info"
    wheel_file = "\n".join([
        "Wheel-Version: 1.0",
        "Generator: corral_build",
        "Root-Is-Purelib: true",
        "Tag: py3-none-any",
    ]) + "\n"
    entries = entries + [
        (f"{info}/METADATA", _metadata(project).encode("utf-8")),
        (f"{info}/WHEEL", wheel_file.encode("utf-8")),
    ]
    record = "".join(f"{path},{_hash(data)}\n" for path, data in entries)
    record += f"{info}/RECORD,,\n"
    entries.append((f"{info}/RECORD", record.encode("utf-8")))
    name = f"{dist}-{project['version']}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(directory, name), "w", zipfile.ZIP_DEFLATED) as wheel:
        for path, data in entries:
            entry = zipfile.ZipInfo(path, FIXED_TIME)
            entry.external_attr = 0o644 << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(entry, data)
    return name


def _read(path: str) -> bytes:
    with open(os.path.join(ROOT, path), "rb") as file:
        return file.read()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    """PEP 517: the package's files as they are."""
    files = [(path.replace(os.sep, "/"), _read(path)) for path in _package_files()]
    return _write_wheel(wheel_directory, files)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """PEP 660: a `.pth` file putting this directory on sys.path."""
    return _write_wheel(wheel_directory, [(f"{PACKAGE}.pth", (ROOT + "\n").encode("utf-8"))])


def build_sdist(sdist_directory, config_settings=None):
    """PEP 517: the sources that build the wheel, and PKG-INFO."""
    project = _project()
    base = f"{_dist_name(project)}-{project['version']}"
    paths = ["pyproject.toml", "README.md", "_build/corral_build.py", *_package_files()]
    name = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        members = [(path, _read(path)) for path in paths]
        members.append(("PKG-INFO", _metadata(project).encode("utf-8")))
        for path, data in members:
            member = tarfile.TarInfo(f"{base}/{path.replace(os.sep, '/')}")
            member.size = len(data)
            member.mode = 0o644
            member.mtime = 315532800  # FIXED_TIME
            tar.addfile(member, io.BytesIO(data))
    return name


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []
