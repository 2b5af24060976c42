"""Corral's objects: compute templates, clusters, RayJobs and RayServices,
with the namespace's quota and the caller's identity.

Each method is one route of the HTTP API (the OpenAPI document at /docs
names them all), its request and answer the API's JSON as dicts, typed by
the TypedDicts of _models.py. `namespace` defaults to the client's. A list
reads every page.
"""

from __future__ import annotations

from typing import Any, Optional, cast

from ._http import Transport, path_of
from ._models import (
    Cluster,
    ComputeTemplate,
    GetQuotaUsageResponse,
    RayJob,
    RayService,
)

API = "/apis/v1alpha2"


class Resources:
    """The create, read, update and delete calls of each kind."""

    _transport: Transport
    namespace: str

    def _ns(self, namespace: Optional[str]) -> str:
        return namespace or self.namespace

    def _path(self, namespace: Optional[str], kind: str, *rest: str) -> str:
        return path_of(API, "namespaces", self._ns(namespace), kind, *rest)

    def _list(self, path: str, key: str) -> list[Any]:
        """Every item of a list route, page after page."""
        items: list[Any] = []
        token = ""
        while True:
            page = self._transport.call("GET", path, params={"pageToken": token})
            items.extend(page.get(key) or [])
            token = page.get("nextPageToken") or ""
            if not token:
                return items

    # Identity and quota.

    def whoami(self) -> dict[str, Any]:
        """Who Corral takes the caller to be: `{"user": ..., "groups": [...]}`."""
        return cast("dict[str, Any]", self._transport.call("GET", f"{API}/whoami"))

    def quota(self, namespace: Optional[str] = None) -> GetQuotaUsageResponse:
        """The namespace's usage and the quotas that apply to the caller there."""
        return cast(GetQuotaUsageResponse, self._transport.call("GET", self._path(namespace, "quota")))

    # Compute templates.

    def create_template(self, template: ComputeTemplate, namespace: Optional[str] = None) -> ComputeTemplate:
        """Creates a compute template (`{"name", "cpu", "memory", ...}`)."""
        ns = self._ns(namespace)
        body = {**template, "namespace": template.get("namespace") or ns}
        return cast(ComputeTemplate, self._transport.call("POST", self._path(ns, "compute_templates"), body))

    def get_template(self, name: str, namespace: Optional[str] = None) -> ComputeTemplate:
        return cast(ComputeTemplate, self._transport.call("GET", self._path(namespace, "compute_templates", name)))

    def list_templates(self, namespace: Optional[str] = None, all_namespaces: bool = False) -> list[ComputeTemplate]:
        path = f"{API}/compute_templates" if all_namespaces else self._path(namespace, "compute_templates")
        return self._list(path, "computeTemplates")

    def delete_template(self, name: str, namespace: Optional[str] = None) -> None:
        self._transport.call("DELETE", self._path(namespace, "compute_templates", name))

    # Clusters.

    def create_cluster(self, cluster: Cluster, namespace: Optional[str] = None) -> Cluster:
        """Creates a cluster; wait_for_cluster() waits until it is ready."""
        ns = self._ns(namespace)
        body = {**cluster, "namespace": cluster.get("namespace") or ns}
        return cast(Cluster, self._transport.call("POST", self._path(ns, "clusters"), body))

    def get_cluster(self, name: str, namespace: Optional[str] = None) -> Cluster:
        return cast(Cluster, self._transport.call("GET", self._path(namespace, "clusters", name)))

    def list_clusters(self, namespace: Optional[str] = None, all_namespaces: bool = False) -> list[Cluster]:
        path = f"{API}/clusters" if all_namespaces else self._path(namespace, "clusters")
        return self._list(path, "clusters")

    def update_cluster(
        self,
        name: str,
        cluster: Cluster,
        update_mask: Optional[str] = None,
        namespace: Optional[str] = None,
    ) -> Cluster:
        """Changes the fields `update_mask` names ("clusterSpec.workerGroupSpec",
        "envs"), else those `cluster` sets; an `etag` in `cluster` makes the
        update refused (code 10 ABORTED) if the cluster changed since."""
        path = self._path(namespace, "clusters", name)
        answer = self._transport.call("PATCH", path, cluster, params={"updateMask": update_mask})
        return cast(Cluster, answer)

    def scale_cluster(
        self,
        name: str,
        group: str,
        replicas: int,
        namespace: Optional[str] = None,
    ) -> Cluster:
        """Sets the replicas of worker group `group`, as read now (its etag
        sent along, so a change made meanwhile is refused, not overwritten)."""
        current = self.get_cluster(name, namespace)
        groups = [dict(g) for g in current.get("clusterSpec", {}).get("workerGroupSpec", [])]
        matching = [g for g in groups if g.get("groupName") == group]
        if not matching:
            names = ", ".join(str(g.get("groupName")) for g in groups) or "(none)"
            raise ValueError(f"cluster {name} has no worker group {group!r} (groups: {names})")
        matching[0]["replicas"] = replicas
        patch: dict[str, Any] = {"clusterSpec": {"workerGroupSpec": groups}}
        if current.get("etag"):
            patch["etag"] = current["etag"]
        return self.update_cluster(name, cast(Cluster, patch), "clusterSpec.workerGroupSpec", namespace)

    def extend_cluster(self, name: str, by: str, namespace: Optional[str] = None) -> Cluster:
        """Pushes the cluster's expiry back `by` ("4h", "30m", "1h30m")."""
        path = self._path(namespace, "clusters", name, "extend")
        return cast(Cluster, self._transport.call("POST", path, {"by": by}))

    def delete_cluster(self, name: str, namespace: Optional[str] = None) -> None:
        """Deletes a cluster; wait_for_cluster(until="deleted") waits until it is gone."""
        self._transport.call("DELETE", self._path(namespace, "clusters", name))

    # RayJobs.

    def create_job(self, job: RayJob, namespace: Optional[str] = None) -> RayJob:
        """Creates a RayJob; wait_for_job() waits until it has finished."""
        ns = self._ns(namespace)
        body = {**job, "namespace": job.get("namespace") or ns}
        return cast(RayJob, self._transport.call("POST", self._path(ns, "jobs"), body))

    def get_job(self, name: str, namespace: Optional[str] = None) -> RayJob:
        return cast(RayJob, self._transport.call("GET", self._path(namespace, "jobs", name)))

    def list_jobs(self, namespace: Optional[str] = None, all_namespaces: bool = False) -> list[RayJob]:
        path = f"{API}/jobs" if all_namespaces else self._path(namespace, "jobs")
        return self._list(path, "jobs")

    def update_job(self, name: str, job: RayJob, namespace: Optional[str] = None) -> RayJob:
        """Changes what a job allows to change (its `suspend`)."""
        return cast(RayJob, self._transport.call("PATCH", self._path(namespace, "jobs", name), job))

    def delete_job(self, name: str, namespace: Optional[str] = None) -> None:
        self._transport.call("DELETE", self._path(namespace, "jobs", name))

    # RayServices.

    def create_service(self, service: RayService, namespace: Optional[str] = None) -> RayService:
        ns = self._ns(namespace)
        body = {**service, "namespace": service.get("namespace") or ns}
        return cast(RayService, self._transport.call("POST", self._path(ns, "services"), body))

    def get_service(self, name: str, namespace: Optional[str] = None) -> RayService:
        return cast(RayService, self._transport.call("GET", self._path(namespace, "services", name)))

    def list_services(self, namespace: Optional[str] = None, all_namespaces: bool = False) -> list[RayService]:
        path = f"{API}/services" if all_namespaces else self._path(namespace, "services")
        return self._list(path, "services")

    def update_service(self, name: str, service: RayService, namespace: Optional[str] = None) -> RayService:
        """Replaces the service's spec with `service` (PUT: the whole of it)."""
        return cast(RayService, self._transport.call("PUT", self._path(namespace, "services", name), service))

    def delete_service(self, name: str, namespace: Optional[str] = None) -> None:
        self._transport.call("DELETE", self._path(namespace, "services", name))
