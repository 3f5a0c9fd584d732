"""fn's overlap of gradient all-reduce with backprop: inside a Function the gradients go in
buckets of split all-reduces (CollectiveAllReduceStart / Done) and the executor's schedule
starts each bucket as soon as backprop has produced it and waits for it only where its result is
read (the multi-worker results themselves are checked under mpirun in test_multi_worker.py)."""
import numpy as np
import pytest

import fn
from fn._distribute import collective

pytestmark = pytest.mark.fn_only


def _model_grads(x, ws):
    with fn.GradientTape() as tape:
        h = x
        for w in ws:
            h = fn.tanh(fn.matmul(h, w))
        loss = fn.reduce_sum(h)
    return tape.gradient(loss, ws)


def test_starts_run_during_backprop_and_dones_late():
    rng = np.random.RandomState(0)
    ws = [fn.Variable(rng.randn(8, 8).astype(np.float32)) for _ in range(4)]

    @fn.function
    def step(x):
        grads = _model_grads(x, ws)
        tokens = [collective.all_reduce_start(g, False, 10.0) for g in reversed(grads)]   # last layer first
        reduced = [collective.all_reduce_done(t, g) for t, g in zip(tokens, reversed(grads))]
        for w, g in zip(reversed(ws), reduced):
            w.assign_sub(0.1 * g)
        return fn.add_n([fn.reduce_sum(g) for g in reduced])

    ops = step.get_concrete_function(fn.TensorSpec([2, 8], fn.float32))._core.plan_step_ops()
    starts = [i for i, op in enumerate(ops) if op == "CollectiveAllReduceStart"]
    dones = [i for i, op in enumerate(ops) if op == "CollectiveAllReduceDone"]
    matmuls = [i for i, op in enumerate(ops) if op in ("MatMul", "_FusedMatMul")]
    assert len(starts) == len(dones) == 4
    # The last layer's bucket starts before backprop reaches the first layers (traced after all
    # of backprop, it would run after the last MatMul in program order).
    assert starts[0] < matmuls[-1]
    assert starts[-1] < dones[0]                      # every start before the first wait
    assigns = [i for i, op in enumerate(ops) if op == "AssignSubVariableOp"]
    assert all(d < a for d, a in zip(dones, assigns))  # each update after its bucket's wait


def test_split_all_reduce_without_transport_says_what_to_install():
    from fn import _core, errors
    if _core._collective_backend_installed():
        pytest.skip("a transport is installed in this process")
    with pytest.raises(errors.FailedPreconditionError, match="openmpi-bin libopenmpi-dev"):
        _core.execute("CollectiveAllReduceStart", [fn.constant([1.0])], {"timeout_seconds": 1.0}, "r")
