"""Clusters: ``tf.train.ClusterSpec`` and the cluster resolvers (``TFConfigClusterResolver``,
``SimpleClusterResolver``) plus fn's ``MPIClusterResolver``, which reads the cluster from MPI
(``mpirun``/``srun`` launch one process per worker; rank 0 is the chief, as worker 0 is in TF
when the cluster has no "chief" job)."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional

from fn._distribute.mpi_backend import import_mpi


class ClusterSpec:
    """``tf.train.ClusterSpec``: jobs ("chief", "worker", ...) and their tasks' addresses."""

    def __init__(self, cluster: Any) -> None:
        if isinstance(cluster, ClusterSpec):
            cluster = cluster.as_dict()
        if not isinstance(cluster, dict):
            raise TypeError(
                "`cluster` must be a dictionary mapping one or more job names to lists of "
                "network addresses, or a `ClusterDef` protocol buffer"
            )
        self._cluster_spec: Dict[str, Dict[int, str]] = {}
        for job_name, tasks in cluster.items():
            if isinstance(tasks, (list, tuple)):
                job_tasks = {i: task for i, task in enumerate(tasks)}
            elif isinstance(tasks, dict):
                job_tasks = {int(i): task for i, task in tasks.items()}
            else:
                raise TypeError(
                    "The tasks for job %r must be a list or a dictionary from integers to strings." % job_name
                )
            self._cluster_spec[job_name] = job_tasks

    def __bool__(self) -> bool:
        return bool(self._cluster_spec)

    def __eq__(self, other: Any) -> bool:
        other = other._cluster_spec if isinstance(other, ClusterSpec) else other
        return self._cluster_spec == other

    def __ne__(self, other: Any) -> bool:
        return not self == other

    def __repr__(self) -> str:
        d = self.as_dict()
        return "ClusterSpec({" + ", ".join(repr(k) + ": " + repr(d[k]) for k in sorted(d)) + "})"

    def as_dict(self) -> dict:
        ret: dict = {}
        for job in self.jobs:
            indices = self.task_indices(job)
            if not indices:
                ret[job] = {}
            elif max(indices) + 1 == len(indices):
                ret[job] = self.job_tasks(job)
            else:
                ret[job] = {i: self.task_address(job, i) for i in indices}
        return ret

    @property
    def jobs(self) -> List[str]:
        return list(self._cluster_spec.keys())

    def _job(self, job_name: str) -> Dict[int, str]:
        try:
            return self._cluster_spec[job_name]
        except KeyError:
            raise ValueError("No such job in cluster: %r" % job_name) from None

    def num_tasks(self, job_name: str) -> int:
        return len(self._job(job_name))

    def task_indices(self, job_name: str) -> List[int]:
        return sorted(self._job(job_name).keys())

    def task_address(self, job_name: str, task_index: int) -> str:
        job = self._job(job_name)
        try:
            return job[task_index]
        except KeyError:
            raise ValueError("No task with index %r in job %r" % (task_index, job_name)) from None

    def job_tasks(self, job_name: str) -> List[Optional[str]]:
        job = self._job(job_name)
        ret: List[Optional[str]] = [None] * (max(job.keys()) + 1)
        for i, task in job.items():
            ret[i] = task
        return ret


class ClusterResolver:
    """``tf.distribute.cluster_resolver.ClusterResolver``: where this task sits in a cluster."""

    task_type: Optional[str] = None
    task_id: Optional[int] = None
    rpc_layer: Optional[str] = None

    def cluster_spec(self) -> ClusterSpec:
        raise NotImplementedError("cluster_spec is implemented by each resolver")

    def master(
        self, task_type: Optional[str] = None, task_id: Optional[int] = None, rpc_layer: Optional[str] = None
    ) -> str:
        return ""

    def num_accelerators(
        self, task_type: Optional[str] = None, task_id: Optional[int] = None, config_proto: Any = None
    ) -> dict:
        return {}

    @property
    def environment(self) -> str:
        return ""


class SimpleClusterResolver(ClusterResolver):
    """``tf.distribute.cluster_resolver.SimpleClusterResolver``: a given ClusterSpec and task."""

    def __init__(
        self,
        cluster_spec: ClusterSpec,
        master: str = "",
        task_type: Optional[str] = None,
        task_id: Optional[int] = None,
        environment: str = "",
        num_accelerators: Any = None,
        rpc_layer: Optional[str] = None,
    ) -> None:
        if not isinstance(cluster_spec, ClusterSpec):
            raise TypeError("cluster_spec must be a `tf.train.ClusterSpec`.")
        self._cluster_spec = cluster_spec
        self._master = master
        self.task_type = task_type
        self.task_id = task_id
        self._environment = environment
        self.rpc_layer = rpc_layer

    def cluster_spec(self) -> ClusterSpec:
        return self._cluster_spec

    def master(
        self, task_type: Optional[str] = None, task_id: Optional[int] = None, rpc_layer: Optional[str] = None
    ) -> str:
        return self._master

    @property
    def environment(self) -> str:
        return self._environment


class TFConfigClusterResolver(ClusterResolver):
    """``tf.distribute.cluster_resolver.TFConfigClusterResolver``: the cluster and task from the
    ``TF_CONFIG`` environment variable (JSON: ``{"cluster": {...}, "task": {"type", "index"}}``)."""

    def __init__(
        self,
        task_type: Optional[str] = None,
        task_id: Optional[int] = None,
        rpc_layer: Optional[str] = None,
        environment: Optional[str] = None,
    ) -> None:
        self._task_type = task_type
        self._task_id = task_id
        self._rpc_layer = rpc_layer
        self._environment = environment

    @staticmethod
    def _config() -> dict:
        return json.loads(os.environ.get("TF_CONFIG", "{}"))

    @property
    def task_type(self) -> Optional[str]:
        if self._task_type is None:
            t = self._config().get("task", {}).get("type")
            return str(t) if t is not None else None
        return str(self._task_type)

    @task_type.setter
    def task_type(self, value: Optional[str]) -> None:
        self._task_type = value

    @property
    def task_id(self) -> Optional[int]:
        if self._task_id is None:
            i = self._config().get("task", {}).get("index")
            return int(i) if i is not None else None
        return int(self._task_id)

    @task_id.setter
    def task_id(self, value: Optional[int]) -> None:
        self._task_id = value

    @property
    def rpc_layer(self) -> Optional[str]:  # type: ignore[override]
        return self._rpc_layer if self._rpc_layer is not None else self._config().get("rpc_layer")

    @property
    def environment(self) -> str:
        return self._environment if self._environment is not None else self._config().get("environment", "")

    def cluster_spec(self) -> ClusterSpec:
        return ClusterSpec(self._config().get("cluster", {}))


class MPIClusterResolver(ClusterResolver):
    """The cluster of an MPI job (fn's own resolver; needs ``fn[mpi]``): one "worker" task per
    rank of ``comm`` (default ``MPI.COMM_WORLD``), ``task_id`` = rank, the addresses are the ranks'
    MPI processor names. Worker 0 (rank 0) is the chief."""

    def __init__(self, comm: Any = None) -> None:
        MPI = import_mpi("MPIClusterResolver")
        self._comm = comm if comm is not None else MPI.COMM_WORLD
        self.task_type = "worker"
        self.task_id = self._comm.Get_rank()
        self.rpc_layer = "mpi"
        self._hosts: List[str] = list(self._comm.allgather(MPI.Get_processor_name()))

    @property
    def comm(self) -> Any:
        return self._comm

    def cluster_spec(self) -> ClusterSpec:
        return ClusterSpec({"worker": list(self._hosts)})

    @property
    def environment(self) -> str:
        return "mpi"


def is_chief(cluster_spec: ClusterSpec, task_type: Optional[str], task_id: Optional[int]) -> bool:
    """TF's ``multi_worker_util.is_chief``: the "chief" task, or worker 0 when there is none."""
    if not cluster_spec or task_type is None:
        return True
    if "chief" in cluster_spec.jobs:
        return task_type == "chief"
    return task_type == "worker" and task_id == 0


def worker_index(cluster_spec: ClusterSpec, task_type: Optional[str], task_id: Optional[int]) -> int:
    """This task's place among the workers that train (chief first, then the workers)."""
    if not cluster_spec or task_type is None:
        return 0
    if task_type == "chief":
        return 0
    if task_type == "worker":
        return (1 if "chief" in cluster_spec.jobs else 0) + int(task_id or 0)
    raise ValueError(f"MultiWorkerMirroredStrategy runs on 'chief' and 'worker' tasks, not {task_type!r}")


def num_workers(cluster_spec: ClusterSpec) -> int:
    """Tasks that train: the chief (if any) and the workers."""
    if not cluster_spec:
        return 1
    jobs = cluster_spec.jobs
    return sum(cluster_spec.num_tasks(j) for j in ("chief", "worker") if j in jobs) or 1
