"""The link to MPI: mpi4py (the optional extra ``fn[mpi]``) initialises MPI and gives the
communicator; ``fn._mpi`` (a native module built only where MPI's headers are found) runs the
collectives' data exchange for the C++ executor, without the GIL (see docs/DESIGN.md)."""

from __future__ import annotations

import atexit
import os
import sys
from typing import Any, Optional
from fn import _core

DEFAULT_TIMEOUT_SECONDS = 300.0  # TF waits forever; fn fails, naming the late worker

_INSTALL = (
    "Install Open MPI (Debian/Ubuntu: apt-get install openmpi-bin libopenmpi-dev), then "
    "`pip install 'fn[mpi]'` (mpi4py>=4) and install fn where MPI's headers are found so that "
    "fn._mpi is built; launch one process per worker with `mpirun -np N python train.py`."
)

_state: dict = {"transport": None, "comm": None, "atexit": False}


def launched_world_size() -> int:
    """The number of processes an MPI launcher started (1 when not launched by one), read from
    the launcher's environment so that it can be known without MPI."""
    for var in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_STEP_NUM_TASKS"):
        value = os.environ.get(var)
        if value and value.isdigit():
            return int(value)
    return 1


def import_mpi(what: str) -> Any:
    """``mpi4py.MPI``, or an ImportError saying what to install."""
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise ImportError(f"{what} needs MPI, and mpi4py is not importable ({e}). {_INSTALL}") from None
    return MPI


def import_native(what: str) -> Any:
    try:
        from fn import _mpi  # built only where MPI is found
    except ImportError as e:
        raise ImportError(
            f"{what} needs fn._mpi, fn's MPI transport, which was not built with this fn ({e}). {_INSTALL}"
        ) from None
    return _mpi


def start(comm: Any, timeout_seconds: Optional[float]) -> None:
    """Installs the MPI transport on ``comm`` as the collective ops' backend (once per process;
    a new communicator replaces the previous one)."""
    native = import_native("MultiWorkerMirroredStrategy")
    if _state["comm"] is not None and _state["comm"] == comm and _state["transport"] is not None:
        return
    capsule = native.start(comm.py2f(), float(timeout_seconds or DEFAULT_TIMEOUT_SECONDS))
    _core._set_collective_backend(capsule)
    _state["transport"], _state["comm"] = capsule, comm
    if not _state["atexit"]:
        # Registered after mpi4py's MPI_Finalize hook, so it runs first (atexit is LIFO).
        atexit.register(_at_exit)
        _state["atexit"] = True


def _at_exit() -> None:
    native = import_native("fn")
    _core._set_collective_backend(None)
    clean = native.shutdown()
    if native.broken() or not clean:
        # A collective timed out (or never completed) and may still be pending in MPI:
        # MPI_Finalize would wait for it forever. End the whole job instead (mpirun reports which
        # process aborted).
        sys.stdout.flush()
        sys.stderr.flush()
        native.abort(1)
