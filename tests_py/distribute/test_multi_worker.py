"""MultiWorkerMirroredStrategy across processes: under fn, ``mpirun -np N`` (N = 2, 3); under
TensorFlow 2.21 (``--against-tf``), N processes with TF_CONFIG on localhost ports. The same
expectations hold for both (the TF run proves them). Workers run ``mw_worker.py``."""
import glob
import json
import os
import re
import shutil
import socket
import subprocess
import sys

import numpy as np
import pytest

from tfbackend import IS_TF

pytestmark = pytest.mark.tf_oracle

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "mw_worker.py")
TESTS_PY = os.path.dirname(HERE)
MPIRUN = shutil.which("mpirun")


def _fn_mpi_ready():
    if IS_TF:
        return True
    try:
        import mpi4py  # noqa: F401
        from fn import _mpi  # noqa: F401
    except ImportError:
        return False
    return MPIRUN is not None


needs_launcher = pytest.mark.skipif(not _fn_mpi_ready(), reason="mpirun, mpi4py or fn._mpi is missing")


def _free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("localhost", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [TESTS_PY, env.get("PYTHONPATH", "")] if p)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    env.pop("TF_CONFIG", None)
    return env


def launch(n, scenario, out, *args, timeout=300, check=True, cmd=None, env_extra=None):
    """Runs ``n`` workers of ``scenario`` (or of ``cmd``); returns (returncode, output, results by
    worker index)."""
    cmd = cmd or [sys.executable, WORKER, scenario, str(out)] + [str(a) for a in args]
    if IS_TF:
        ports = _free_ports(n)
        cluster = {"worker": [f"localhost:{p}" for p in ports]}
        procs = []
        for i in range(n):
            env = _env()
            env.update(env_extra or {})
            env["TF_CONFIG"] = json.dumps({"cluster": cluster, "task": {"type": "worker", "index": i}})
            procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
        outputs, code = [], 0
        for p in procs:
            try:
                o, _ = p.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                for q in procs:
                    q.kill()
                raise
            outputs.append(o)
            code = code or p.returncode
        output = "\n".join(outputs)
    else:
        mpi = [MPIRUN, "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "-np", str(n)]
        proc = subprocess.run(mpi + cmd, env=dict(_env(), **(env_extra or {})), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=timeout)
        code, output = proc.returncode, proc.stdout
    if check:
        assert code == 0, output[-4000:]
    results = {}
    for path in glob.glob(os.path.join(str(out), f"{scenario}.*.json")):
        with open(path) as f:
            results[int(path.rsplit(".", 2)[1])] = json.load(f)
    return code, output, results


@needs_launcher
@pytest.mark.parametrize("n,bytes_per_pack", [(2, 0), (3, 64)])
def test_n_workers_train_like_one_process_with_n_times_the_batch(tmp_path, n, bytes_per_pack):
    per_worker, steps = 4, 6
    multi = tmp_path / "multi"
    single = tmp_path / "single"
    multi.mkdir()
    single.mkdir()
    _, _, results = launch(n, "train", multi, per_worker, steps, bytes_per_pack)
    assert sorted(results) == list(range(n))
    assert all(r["replicas"] == n for r in results.values())
    # The single process: no cluster, the global batch.
    env = _env()
    subprocess.run([sys.executable, WORKER, "train", str(single), str(per_worker * n), str(steps)], env=env,
                   check=True, timeout=300)
    ref = np.load(single / "train.0.npz")
    ranks = [np.load(multi / f"train.{i}.npz") for i in range(n)]
    for key in ref.files:
        for r in ranks:
            np.testing.assert_array_equal(r[key], ranks[0][key])          # all workers agree bit for bit
        np.testing.assert_allclose(ranks[0][key], ref[key], rtol=1e-5, atol=1e-6)
    # The loss each worker reports is the global batch's loss (summed over replicas).
    with open(single / "train.0.json") as f:
        single_losses = json.load(f)["losses"]
    for r in results.values():
        np.testing.assert_allclose(r["losses"], single_losses, rtol=1e-5)


@needs_launcher
@pytest.mark.parametrize("n", [2, 3])
def test_cross_worker_values(tmp_path, n):
    _, _, results = launch(n, "api", tmp_path)
    _check_api(results, n)


# Under mpirun with TF_CONFIG set per process (here the reverse of the MPI rank order), TF's
# resolver gives the task and fn re-orders the ranks so that rank = TF's worker index.
_REVERSED_TF_CONFIG = """import json, os, runpy, sys
n, rank = int(os.environ["OMPI_COMM_WORLD_SIZE"]), int(os.environ["OMPI_COMM_WORLD_RANK"])
cluster = {"worker": [f"localhost:{20000 + k}" for k in range(n)]}
os.environ["TF_CONFIG"] = json.dumps({"cluster": cluster, "task": {"type": "worker", "index": n - 1 - rank}})
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


@needs_launcher
@pytest.mark.fn_only
def test_cross_worker_values_with_tf_config_under_mpirun(tmp_path):
    """fn only (under TF, TF_CONFIG is how every test here runs): the expectations of
    test_cross_worker_values, with the worker index taken from TF_CONFIG, not from the MPI rank."""
    n = 2
    cmd = [sys.executable, "-c", _REVERSED_TF_CONFIG, WORKER, "api", str(tmp_path)]
    _, _, results = launch(n, "api", tmp_path, cmd=cmd)
    _check_api(results, n)


def _check_api(results, n):
    assert sorted(results) == list(range(n))
    tri = n * (n + 1) / 2
    for i, r in results.items():
        assert (r["n"], r["index"], r["multi"], r["replica_id"]) == (n, i, True, i)
        assert r["reduce_sum"] == [tri, 10 * tri]
        np.testing.assert_allclose(r["reduce_mean"], [tri / n, 10 * tri / n], rtol=1e-6)
        np.testing.assert_allclose(r["reduce_mean_axis0"], 11 * tri / (2 * n), rtol=1e-6)
        assert r["gather0"] == [[float(k), float(k)] for k in range(n) for _ in range(k + 1)]
        assert r["gather1"] == [[float(k) for k in range(n)]] * 2
        assert r["all_reduce_sum"] == [tri, 2 * tri]
        np.testing.assert_allclose(r["all_reduce_mean"], (n - 1) / 2, rtol=1e-6)
        assert r["all_gather"] == [float(k) for k in range(n)]
        # Each global batch of 4n elements: worker i gets elements [4i, 4i + 4) of it.
        assert r["dataset"] == [[4 * n * b + 4 * i + k for k in range(4)] for b in range(3)]
        assert r["dataset_type"] == "PerReplica"
        assert r["dataset_run"] == [[2 * (4 * i + k) for k in range(4)]]
        assert r["dataset_fn_sum"] == sum(range(4 * n))                # the first global batch
        shard = list(range(i, 6 * n, n))
        assert r["from_function"] == [shard[k:k + 2] for k in range(0, 6, 2)]
        assert r["resolver"][0] == "worker" and r["resolver"][1] == i
        assert r["resolver"][2:] == [["worker"], n]
        assert r["should_checkpoint"] == (i == 0)
        assert r["variable"] == 5.0                                    # the chief's initial value


@needs_launcher
@pytest.mark.fn_only
def test_mismatched_programs_fail_on_every_worker(tmp_path):
    code, output, results = launch(2, "mismatch", tmp_path, timeout=120, check=False)
    assert sorted(results) == [0, 1], output[-3000:]
    for r in results.values():
        assert r["error"] == "InvalidArgumentError", r
        assert "collective plans differ" in r["message"]
        assert "float32[2]" in r["message"] and "float32[3]" in r["message"]


@needs_launcher
@pytest.mark.fn_only
@pytest.mark.parametrize("scenario,n", [("stall", 2), ("stall_split", 2), ("stall_large", 2), ("stall_large", 3)])
def test_a_stalled_worker_is_named_within_the_timeout(tmp_path, scenario, n):
    code, output, results = launch(n, scenario, tmp_path, timeout=60, check=False)
    others = [i for i in range(n) if i != 1]
    assert sorted(results) == others, output[-3000:]
    for i in others:
        r = results[i]
        assert r["error"] == "DeadlineExceededError", r
        assert "Waiting for rank(s) 1" in r["message"], r["message"]
        assert r["seconds"] < 15
    assert code != 0          # the job is ended (MPI_Abort), not left hanging on the sleeping rank


@pytest.mark.fn_only
def test_multi_worker_without_mpi_says_what_to_install(tmp_path):
    script = ("import sys; sys.modules['mpi4py'] = None\n"
              "import fn\n"
              "try:\n"
              "    fn.distribute.MultiWorkerMirroredStrategy()\n"
              "except ImportError as e:\n"
              "    print('ERR', e)\n")
    env = _env()
    env["OMPI_COMM_WORLD_SIZE"] = "2"          # as if mpirun had started two workers
    out = subprocess.run([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, text=True,
                         timeout=120).stdout
    assert "ERR" in out and "openmpi-bin libopenmpi-dev" in out and "fn[mpi]" in out, out


def test_single_process_multi_worker_strategy_is_local():
    from tfbackend import tf
    s = tf.distribute.MultiWorkerMirroredStrategy()
    assert s.num_replicas_in_sync == 1
    assert not s.extended._in_multi_worker_mode()
    assert s.cluster_resolver.task_type is None and s.cluster_resolver.task_id is None
    assert not s.cluster_resolver.cluster_spec()
    x = s.run(lambda: tf.constant([1.0, 2.0]))
    np.testing.assert_allclose(s.reduce("SUM", x, axis=None).numpy(), [1.0, 2.0])
    assert isinstance(s, tf.distribute.Strategy)


@pytest.mark.fn_only
def test_collective_op_without_transport_says_what_to_install():
    from fn import _core, errors
    import fn
    if _core._collective_backend_installed():
        pytest.skip("a transport is installed in this process")
    with pytest.raises(errors.FailedPreconditionError, match="openmpi-bin libopenmpi-dev"):
        _core.execute("CollectiveAllReduce", [fn.constant([1.0])], {"timeout_seconds": 1.0}, "r")


@pytest.mark.fn_only
def test_worker_pieces_of_a_batch():
    from fn._distribute.shard import piece_bounds
    # TF's batch_sizes_for_worker gives the first `b % W` workers one more element.
    assert [piece_bounds(7, 2, i) for i in range(2)] == [(0, 4), (4, 7)]
    assert [piece_bounds(7, 3, i) for i in range(3)] == [(0, 3), (3, 5), (5, 7)]
    assert [piece_bounds(2, 3, i) for i in range(3)] == [(0, 1), (1, 2), (2, 2)]
    assert [piece_bounds(8, 2, i) for i in range(2)] == [(0, 4), (4, 8)]


def _single(tmp_path, scenario, *args):
    """The scenario in one process without a cluster (the reference run)."""
    out = tmp_path / "single"
    out.mkdir(exist_ok=True)
    subprocess.run([sys.executable, WORKER, scenario, str(out)] + [str(a) for a in args], env=_env(), check=True,
                   timeout=300)
    with open(out / f"{scenario}.0.json") as f:
        return out, json.load(f)


@needs_launcher
@pytest.mark.parametrize("n", [2, 3])
def test_keras_fit_on_n_workers_equals_one_process_with_the_global_batch(tmp_path, n):
    per_worker, epochs = 4, 3
    multi = tmp_path / "multi"
    multi.mkdir()
    _, _, results = launch(n, "keras_fit", multi, per_worker, epochs)
    assert sorted(results) == list(range(n))
    single_dir, single = _single(tmp_path, "keras_fit", per_worker * n, epochs)
    ref = np.load(single_dir / "keras_fit.0.npz")
    ranks = [np.load(multi / f"keras_fit.{i}.npz") for i in range(n)]
    for key in ref.files:
        for r in ranks:
            np.testing.assert_array_equal(r[key], ranks[0][key])          # all workers agree bit for bit
        np.testing.assert_allclose(ranks[0][key], ref[key], rtol=1e-5, atol=1e-6)
    for r in results.values():
        assert r["replicas"] == n
        # fit's history and evaluate report the global metrics (the metric variables are
        # synchronized on read), equal to the one-process run's.
        for name in ("loss", "mae"):
            np.testing.assert_allclose(r["history"][name], single["history"][name], rtol=1e-5)
            np.testing.assert_allclose(r["evaluate"][name], single["evaluate"][name], rtol=1e-5)
        assert r["variable_types"] == ["MirroredVariable"]
        assert r["metric_variable_types"] == ["SyncOnReadVariable"]
        assert r["iterations"] == single["iterations"] == epochs * (96 // (per_worker * n))


@needs_launcher
@pytest.mark.fn_only
@pytest.mark.parametrize("n,steps_per_execution", [(2, 5), (3, 3)])
def test_keras_fit_with_steps_per_execution_on_n_workers(tmp_path, n, steps_per_execution):
    """fn only: TF 2.21 cannot run it (with keras-team/keras#20585's fix, as in ``_keras()``, its
    multi-step train Function fails: "You must feed a value for placeholder tensor
    'while/body/.../while/cond/Placeholder_1'", the all-reduce of the logs inside the while loop's
    cond). The expectation is the property TF proves for one step per execution
    (test_keras_fit_on_n_workers_equals_one_process_with_the_global_batch): N workers end where one
    process with the global batch ends."""
    # 96 samples, global batch 4n: 12 (n=2) or 8 (n=3) steps per epoch, a partial last execution.
    per_worker, epochs = 4, 2
    multi = tmp_path / "multi"
    multi.mkdir()
    _, _, results = launch(n, "keras_fit", multi, per_worker, epochs, steps_per_execution)
    assert sorted(results) == list(range(n))
    single_dir, single = _single(tmp_path, "keras_fit", per_worker * n, epochs, 1)
    ref = np.load(single_dir / "keras_fit.0.npz")
    ranks = [np.load(multi / f"keras_fit.{i}.npz") for i in range(n)]
    for key in ref.files:
        for r in ranks:
            np.testing.assert_array_equal(r[key], ranks[0][key])
        np.testing.assert_allclose(ranks[0][key], ref[key], rtol=1e-5, atol=1e-6)
    for r in results.values():
        for name in ("loss", "mae"):
            np.testing.assert_allclose(r["history"][name], single["history"][name], rtol=1e-5)
            np.testing.assert_allclose(r["evaluate"][name], single["evaluate"][name], rtol=1e-5)
        assert r["iterations"] == single["iterations"] == epochs * (96 // (per_worker * n))


@needs_launcher
@pytest.mark.parametrize("n", [2, 3])
def test_get_next_as_optional_has_a_value_while_any_worker_has_one(tmp_path, n):
    _, _, results = launch(n, "optional_uneven", tmp_path)
    assert sorted(results) == list(range(n))
    for i, r in results.items():
        rows = [2] * (i + 2) + [0] * (n - 1 - i)          # worker i has i + 2 batches; all run n + 1 steps
        own = float(sum(range(2 * (i + 2))) + 100 * i * 2 * (i + 2))
        assert r["eager_rows"] == rows and r["eager_total"] == own
        assert r["next_rows"] == r["get_next_rows"] == rows
        assert r["fn_steps"] == n + 1 and r["fn_total"] == own
        assert r["fn_rows"] == sum(k * 10 ** s for s, k in enumerate(rows))
        # Inside Functions: every loop form steps n + 1 times on every worker; next() then raises.
        coded = sum(k * 10 ** s for s, k in enumerate(rows))
        assert r["for_dataset"] == r["for_iterator"] == r["reduce"] == [n + 1, coded, own]
        assert r["fn_next_rows"] == r["iter_next_rows"] == rows
        assert r["iter_next_past_end"] == "OutOfRangeError"


@needs_launcher
@pytest.mark.parametrize("n", [2])
def test_distributed_variables_as_function_arguments(tmp_path, n):
    _, _, results = launch(n, "var_arg", tmp_path)
    assert sorted(results) == list(range(n))
    tri = n * (n + 1) / 2
    for i, r in results.items():
        assert r["plain"] == i + 1.0                  # a plain variable: the local update
        assert r["mirrored"] == tri                   # traced again: the update is all-reduced (SUM)
        assert r["read_plain"] == r["read_plain_again"] == [i + 1.0, 1.0]
        assert r["read_on_read"] == [tri, float(n)]   # traced again: the read is reduced
        assert r["assign_list"] == "TypeError"        # TF's value / num_replicas of a Python list


@needs_launcher
def test_backup_and_restore_resumes_an_interrupted_fit(tmp_path):
    n, epochs = 2, 4
    code, output, first = launch(n, "keras_backup", tmp_path, 0, epochs)
    assert all(r["interrupted"] for r in first.values()), output[-3000:]
    _, _, resumed = launch(n, "keras_backup", tmp_path, 1, epochs)
    _, _, straight = launch(n, "keras_backup", tmp_path, 2, epochs)
    steps = 96 // (4 * n)
    for i in range(n):
        assert first[i]["iterations"] == 2 * steps
        assert resumed[i]["epochs"] == [2, 3]                               # resumed at the epoch reached
        assert straight[i]["epochs"] == [0, 1, 2, 3]
        assert resumed[i]["iterations"] == straight[i]["iterations"] == epochs * steps
        np.testing.assert_allclose(resumed[i]["loss"], straight[i]["loss"][2:], rtol=1e-6)
        a, b = np.load(tmp_path / f"keras_backup1.{i}.npz"), np.load(tmp_path / f"keras_backup2.{i}.npz")
        for key in a.files:
            np.testing.assert_allclose(a[key], b[key], rtol=1e-6, atol=1e-7)


@needs_launcher
def test_variables_and_checkpoints_across_workers(tmp_path):
    n = 3
    _, _, results = launch(n, "state", tmp_path)
    assert sorted(results) == list(range(n))
    tri = n * (n + 1) / 2
    for i, r in results.items():
        assert r["types"] == ["MirroredVariable", "SyncOnReadVariable"]
        assert r["distributed_values"] is True
        assert r["sync"] == ["ON_WRITE", "ON_READ"] and r["trainable"] == [True, False]
        # Replica-context updates of mirrored variables are aggregated as their aggregation says.
        assert r["m_sum"] == tri
        assert r["m_mean"] == pytest.approx(10.0 * (n - 1) / 2)
        assert r["m_none"] == i + 1.0                                       # NONE: the local update
        assert r["m_first"] == 1
        # Sync-on-read: each replica its own copy, reduced when read outside the replica.
        assert r["r_sum_local"] == r["r_sum_in_replica"] == i + 1.0
        assert r["r_sum"] == r["reduce_r_sum"] == tri
        assert r["r_mean_local"] == 10.0 * i
        assert r["r_mean"] == pytest.approx(10.0 * (n - 1) / 2)
        assert "does not support `assign_add` in cross-replica context" in r["assign_add_error"]
        # Checkpoint: the chief's file, restored on every worker; the others' temporary files gone.
        assert r["latest"] == os.path.join("ckpt", "ckpt-1") and r["temp_dirs"] == []
        assert r["restored_m_sum"] == tri
        assert r["restored_r_sum"] == pytest.approx(tri) and r["restored_r_sum_local"] == pytest.approx(tri / n)
        assert r["restored_r_mean"] == pytest.approx(10.0 * (n - 1) / 2)
        assert r["restored_r_mean_local"] == pytest.approx(10.0 * (n - 1) / 2)
        assert r["assigned_r_sum"] == pytest.approx(6.0) and r["assigned_r_sum_local"] == pytest.approx(6.0 / n)


@needs_launcher
@pytest.mark.parametrize("n", [2])
def test_all_reduce_results_and_inputs_when_inputs_die_there(tmp_path, n):
    _, _, results = launch(n, "in_place", tmp_path)
    assert sorted(results) == list(range(n))
    tri = n * (n + 1) / 2
    base = np.array([1.0, 2.0, 3.0])
    for i, r in results.items():
        np.testing.assert_allclose(r["argument"], tri * base)
        assert r["argument_after"] == ((i + 1) * base).tolist()
        np.testing.assert_allclose(r["twice"], 2 * tri * base)          # MEAN of n equal sums
        np.testing.assert_allclose(r["summed"], 3 * tri * base)
        assert r["kept"] == (3 * (i + 1) * base).tolist()
        assert r["looped_after"] == ((i + 1) * base).tolist()
        # v <- sum over workers of (v + 1), three times.
        v = np.array([(k + 1) * base for k in range(n)])
        for _ in range(3):
            v = np.tile((v + 1).sum(axis=0), (n, 1))
        np.testing.assert_allclose(r["looped"], v[0])


@needs_launcher
@pytest.mark.parametrize("n", [2])
def test_get_next_as_optional_of_an_infinite_dataset_needs_no_all_reduce(tmp_path, n):
    _, _, results = launch(n, "optional_infinite", tmp_path)
    assert sorted(results) == list(range(n))
    for i, r in results.items():
        assert r["cardinality"] == -1                                    # INFINITE
        batch = [float(10 * i), 10 * i + 1.0]
        assert r["eager"] == [[True, batch]] * 3
        assert r["fn"] == [True, batch, True, batch]
        assert r["collectives"] == 0                                     # (TF: not counted)


EXAMPLE = os.path.join(os.path.dirname(TESTS_PY), "examples", "distributed_custom_training.py")
# The example imports fn as tf; under TF the same file runs with TensorFlow in fn's place.
_AS_TF = "import sys, runpy, tensorflow; sys.modules['fn'] = tensorflow; runpy.run_path(sys.argv[1], run_name='__main__')"


@needs_launcher
def test_the_distributed_custom_training_example_runs_on_two_workers(tmp_path):
    """examples/distributed_custom_training.py (TF's custom-training tutorial) under ``mpirun -np 2``
    (TF: TF_CONFIG): the workers agree on every epoch's numbers, the chief's checkpoint is the one
    every worker restores, and the other worker's temporary checkpoint is gone."""
    (tmp_path / "tmp").mkdir()
    cmd = [sys.executable, "-c", _AS_TF, EXAMPLE] if IS_TF else [sys.executable, EXAMPLE]
    env = {"CKPT_DIR": str(tmp_path / "ckpt"), "TMPDIR": str(tmp_path / "tmp")}
    _, output, _ = launch(2, "example", tmp_path, cmd=cmd, env_extra=env, timeout=600)
    # mpirun forwards each worker's writes as they come: one worker's line may land inside the
    # other's (print writes the text and the newline separately), so match the texts, not lines.
    epochs = {}
    number = r"-?[\d.]+"
    for who, text in re.findall(rf"\[(\w+:\d+)\] Epoch (\d+, Loss: {number}, Accuracy: {number}, "
                                rf"Test Loss: {number}, Test Accuracy: {number})", output):
        epochs.setdefault(who, []).append(text)
    assert sorted(epochs) == ["worker:0", "worker:1"], output[-3000:]
    assert epochs["worker:0"] == epochs["worker:1"] and len(epochs["worker:0"]) == 2
    restored = re.findall(r"\] restored (\S+?ckpt-\d+)", output)  # the next write may follow at once
    assert restored == [os.path.join(str(tmp_path / "ckpt"), "ckpt-2")] * 2, output[-3000:]
    assert glob.glob(str(tmp_path / "tmp" / "workertemp_*")) == []


@needs_launcher
@pytest.mark.parametrize("n", [2])
def test_auto_shard_policies_of_a_distributed_dataset(tmp_path, n):
    _, _, results = launch(n, "shard_policy", tmp_path)
    assert sorted(results) == list(range(n))
    batches = [list(range(b, b + 2 * n)) for b in range(0, 6 * n, 2 * n)]
    pieces = [[batch[2 * k:2 * k + 2] for k in range(n)] for batch in batches]
    for i, r in results.items():
        assert r["DATA"] == r["AUTO"] == [p[i] for p in pieces]
        assert r["OFF"] == [piece for p in pieces for piece in p]


def _file_lines(files):
    """The lines of file_shard's text files: file f holds 10f + k for k < 4 (f even) or 3 (f odd)."""
    return [[str(10 * f + k) for k in range(3 if f % 2 else 4)] for f in range(files)]


def _cycle(lines, length=2):
    """TF's interleave order (cycle_length 2, block 1): a slot whose file ended opens the next
    file at its turn and reads from it in the same turn."""
    out, pending, slots = [], [list(x) for x in lines], [None] * length
    while True:
        progressed = False
        for k in range(length):
            while True:
                if not slots[k]:
                    if not pending:
                        slots[k] = None
                        break
                    slots[k] = pending.pop(0)
                    continue
                out.append(slots[k].pop(0))
                progressed = True
                break
        if not progressed:
            return out


def _pieces(stream, batch, n, fill):
    """Each batch of ``stream`` in n pieces: filled in order (FILE: TF's rebatch), or split as
    ``piece_bounds`` (DATA: the worker's piece)."""
    def piece_bounds(rows, workers, k):          # the first rows % workers pieces one larger
        base, extra = divmod(rows, workers)
        begin = k * base + min(k, extra)
        return begin, begin + base + (1 if k < extra else 0)

    out = []
    for b in range(0, len(stream), batch):
        rows = stream[b:b + batch]
        if fill:
            out.extend([rows[k * (batch // n):(k + 1) * (batch // n)] for k in range(n)])
        else:
            out.append([rows[piece_bounds(len(rows), n, k)[0]:piece_bounds(len(rows), n, k)[1]] for k in range(n)])
    return out


@needs_launcher
def test_file_based_datasets_are_sharded_by_files(tmp_path):
    """AUTO and FILE shard a file-based pipeline (list_files + flat_map, interleave, a list of
    names) by files: worker i reads files i, i + n, ... batched with the global batch, each batch
    in n pieces; DATA keeps the worker's piece of each global batch; FILE on in-memory data is
    NotFoundError, AUTO falls back to DATA. With fewer files than workers FILE/AUTO fail."""
    n, files = 2, 4
    _, _, results = launch(n, "file_shard", tmp_path, files)
    assert sorted(results) == list(range(n))
    lines = _file_lines(files)
    for i, r in results.items():
        mine = [lines[f] for f in range(i, files, n)]
        by_file = {"flat_map": sum(mine, []), "interleave": _cycle(mine), "names": [s + "!" for s in sum(mine, [])]}
        everything = {"flat_map": sum(lines, []), "interleave": _cycle(lines),
                      "names": [s + "!" for s in sum(lines, [])]}
        for pipe in by_file:
            assert r[f"{pipe}_AUTO"] == r[f"{pipe}_FILE"] == _pieces(by_file[pipe], 2 * n, n, True), (i, pipe)
            assert r[f"{pipe}_DATA"] == [p[i] for p in _pieces(everything[pipe], 2 * n, n, False)], (i, pipe)
        memory = [str(v) for v in range(12 * n)]
        assert r["memory_AUTO"] == r["memory_DATA"] == [p[i] for p in _pieces(memory, 2 * n, n, False)]
        assert r["memory_FILE"][0] == "NotFoundError" and "Found an unshardable source dataset" in r["memory_FILE"][1]
    one = tmp_path / "one"
    one.mkdir()
    _, _, results = launch(n, "file_shard", one, 1)
    # TF raises where a worker's shard of the names runs out (worker 0 after its file's lines; the
    # others' results then depend on when the collectives see it); fn raises on every worker at once.
    for i, r in results.items():
        if IS_TF and i:
            continue
        for pipe in ("flat_map", "interleave", "names"):
            for policy in ("AUTO", "FILE"):
                error, message = r[f"{pipe}_{policy}"]
                assert error == "InvalidArgumentError", (i, pipe, policy, error)
                assert ("Could not apply FILE based sharding: the dataset only has 1 file(s), which is not enough "
                        "for the required 2 shards/workers") in message
            sfx = "!" if pipe == "names" else ""
            assert r[f"{pipe}_DATA"] == [[f"{2 * i}{sfx}", f"{2 * i + 1}{sfx}"]]          # one batch of 4 lines


@needs_launcher
def test_auto_shard_walks_every_input_of_concatenate_and_zip(tmp_path):
    """TF's auto_shard walks both inputs of concatenate and zip: two file readers are each sharded
    by files (AUTO, FILE); with an in-memory source after a reader FILE is NotFoundError and AUTO
    keeps the reader sharded and then shards the result by data (TF's rewrite does so). The
    flat_map function runs once (its trace), not again to find the reader."""
    n, files = 2, 4
    _, _, results = launch(n, "file_shard_multi", tmp_path, files)
    assert sorted(results) == list(range(n))
    lines, half = _file_lines(files), files // 2
    memory = [f"m{k}" for k in range(6)]
    first, second = list(range(half)), list(range(half, files))

    def zipped(a, b):
        return [f"{x}|{y}" for x, y in zip(a, b)]

    def own(fs, i):
        return sum([lines[f] for f in fs[i::n]], [])

    def every(fs):
        return sum([lines[f] for f in fs], [])

    for i, r in results.items():
        by_file = {"concat": own(first, i) + own(second, i), "zip": zipped(own(first, i), own(second, i))}
        everything = {"concat": every(first) + every(second), "zip": zipped(every(first), every(second))}
        for pipe in by_file:
            assert r[f"{pipe}_AUTO"] == r[f"{pipe}_FILE"] == _pieces(by_file[pipe], 2 * n, n, True), (i, pipe)
            assert r[f"{pipe}_DATA"] == [p[i] for p in _pieces(everything[pipe], 2 * n, n, False)], (i, pipe)
        mixed = {"concat_memory": (own(first, i) + memory, every(first) + memory),
                 "zip_memory": (zipped(own(first, i), memory), zipped(every(first), memory))}
        for pipe, (auto, data) in mixed.items():
            error, message = r[f"{pipe}_FILE"]
            assert error == "NotFoundError" and "Found an unshardable source dataset" in message, (i, pipe)
            assert r[f"{pipe}_AUTO"] == [p[i] for p in _pieces(auto, 2 * n, n, False)], (i, pipe)
            assert r[f"{pipe}_DATA"] == [p[i] for p in _pieces(data, 2 * n, n, False)], (i, pipe)
        assert r["flat_map_calls"] == [1, 1]   # built (its trace), then distributed: no extra call


@needs_launcher
@pytest.mark.parametrize("n", [2, 3])
def test_data_sharding_of_a_global_batch_that_does_not_divide(tmp_path, n):
    """Global batch 5 over 2 and 3 workers (and a final partial batch, and fewer rows than
    workers): DATA and AUTO give worker i its piece of every batch, the first rows % n pieces one
    row larger; distribute_datasets_from_function's own pipelines run as built, a worker whose
    data ended getting an empty batch while another still has one."""
    _, _, results = launch(n, "data_uneven", tmp_path)
    assert sorted(results) == list(range(n))

    def piece(rows, i):
        base, extra = divmod(len(rows), n)
        begin = i * base + min(i, extra)
        return rows[begin:begin + base + (1 if i < extra else 0)]

    own = [list(range(i, 13, n)) for i in range(n)]
    steps = max((len(o) + 1) // 2 for o in own)
    for i, r in results.items():
        for total in (13, 10, 3):
            batches = [list(range(b, min(b + 5, total))) for b in range(0, total, 5)]
            assert r[f"DATA_{total}"] == r[f"AUTO_{total}"] == [piece(b, i) for b in batches], (i, total)
        mine = [own[i][k:k + 2] for k in range(0, 2 * steps, 2)]
        assert r["from_function"] == mine, i


@needs_launcher
@pytest.mark.parametrize("n", [2])
def test_a_collective_in_a_loop_or_nested_function_of_the_replica_function(tmp_path, n):
    # TF's mirrored_run refuses a merge_call (all_reduce's) in another graph than strategy.run's;
    # strategy.run inside a loop or a nested Function (steps_per_execution) all-reduces.
    _, _, results = launch(n, "merge_graph", tmp_path)
    assert sorted(results) == list(range(n))
    for r in results.values():
        for name in ("in_loop", "nested", "nested_in_loop"):
            assert r[name].startswith("RuntimeError: "), (name, r[name])
            assert "`merge_call` called while defining a new graph or a tf.function" in r[name], name
        assert r["run_in_loop"] == [3.0 * n, 6.0 * n]   # w is worker 0's [1, 2] on every worker


@needs_launcher
@pytest.mark.parametrize("n", [2])
def test_an_all_reduce_of_a_tensor_made_outside_strategy_run(tmp_path, n):
    # TF's cross-device ops refuse a destination without a device: in a Function, a tensor made
    # outside strategy.run (an argument, a tf.range loop's variable) has none.
    _, _, results = launch(n, "destinations", tmp_path)
    assert sorted(results) == list(range(n))
    total = [float(sum(i + 1 for i in range(n))), 2.0 * n]
    for r in results.values():
        for name in ("argument", "range_loop"):
            assert r[name].startswith("ValueError: ") and r[name].endswith("destinations can not be empty"), r[name]
        assert r["range_loop_inside"] == [n * v for v in total]
        assert r["converted"] == [2.0 * v for v in total]
