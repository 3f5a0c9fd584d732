"""What TF 2.21's strategies allow in the function given to ``strategy.run``, on one process:
the mirrored strategies (MirroredStrategy on one CPU, MultiWorkerMirroredStrategy without a
cluster) refuse an all-reduce of a tensor made outside ``strategy.run`` in a Function
(``destinations can not be empty``) and a merge_call in a control-flow body or a nested Function
of the replica function (the merge_call RuntimeError); OneDeviceStrategy and the default strategy
allow both. Every strategy AutoGraph-converts the replica function inside a Function. Each
expectation is TF's (run with ``--against-tf``)."""

import functools

import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

MERGE_ERROR = "`merge_call` called while defining a new graph or a tf.function"
EMPTY = "destinations can not be empty"
NOT_A_DESTINATION = (
    "destinations must be one of a `DistributedValues` object, a tf.Variable object, or a device string."
)


@functools.lru_cache(maxsize=None)
def make(name):
    # One strategy of each kind per process (TF configures its collectives once).
    return {
        "mirrored": lambda: tf.distribute.MirroredStrategy(),
        "multi_worker": lambda: tf.distribute.MultiWorkerMirroredStrategy(),
        "one_device": lambda: tf.distribute.OneDeviceStrategy("/cpu:0"),
        "default": lambda: tf.distribute.get_strategy(),
    }[name]()


MIRRORED = ["mirrored", "multi_worker"]
PERMISSIVE = ["one_device", "default"]
ALL = MIRRORED + PERMISSIVE


def all_reduce(v):
    return tf.distribute.get_replica_context().all_reduce("SUM", v)


def merge_add_one(v):
    return tf.distribute.get_replica_context().merge_call(lambda _, y: y + 1.0, args=(v,))


# -- 1a: an all-reduce of a tensor without a device


def _outside_programs(strategy):
    """Functions whose replica function all-reduces a tensor made outside strategy.run."""

    @tf.function
    def argument(t):
        return strategy.run(all_reduce, args=(t,))

    @tf.function
    def range_loop(t):
        for _ in tf.range(2):
            t = strategy.run(all_reduce, args=(t,))
        return t

    @tf.function
    def range_loop_constant():
        s = tf.zeros([2])
        for _ in tf.range(2):
            s += strategy.run(all_reduce, args=(tf.constant([1.0, 2.0]),))
        return s

    @tf.function
    def captured(t):
        return strategy.run(lambda: all_reduce(t))

    @tf.function
    def mean(t):
        return strategy.run(lambda v: tf.distribute.get_replica_context().all_reduce("MEAN", v), args=(t,))

    return {
        "argument": argument,
        "range_loop": range_loop,
        "range_loop_constant": range_loop_constant,
        "captured": captured,
        "mean": mean,
    }


def _run(program, x):
    return program(x) if program.python_function.__code__.co_argcount else program()


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("program", ["argument", "range_loop", "range_loop_constant", "captured", "mean"])
def test_all_reduce_of_a_tensor_made_outside_run_in_a_function(name, program):
    strategy = make(name)
    f = _outside_programs(strategy)[program]
    x = tf.constant([1.0, 2.0])
    if name in MIRRORED:
        with pytest.raises(ValueError, match=EMPTY):
            _run(f, x)
    else:
        assert _run(f, x).numpy().tolist() == ([2.0, 4.0] if program == "range_loop_constant" else [1.0, 2.0])


@pytest.mark.parametrize("name", ALL)
def test_all_reduce_of_tensors_made_inside_run_in_a_function(name):
    strategy = make(name)

    @tf.function
    def loop(t):
        s = tf.zeros([2])
        for i in tf.range(2):
            s += strategy.run(lambda v: all_reduce(v * tf.cast(i + 1, tf.float32)), args=(t,))
        return s

    @tf.function
    def made_inside():
        return strategy.run(lambda: all_reduce([tf.constant([1.0, 2.0]), 3.0]))

    @tf.function
    def placed(t):
        with tf.device("/cpu:0"):
            t = t * 1.0
        return strategy.run(all_reduce, args=(t,))

    x = tf.constant([1.0, 2.0])
    assert loop(x).numpy().tolist() == [3.0, 6.0]
    a, b = made_inside()
    assert a.numpy().tolist() == [1.0, 2.0] and float(b) == 3.0
    assert placed(x).numpy().tolist() == [1.0, 2.0]
    assert strategy.run(all_reduce, args=(x,)).numpy().tolist() == [1.0, 2.0]  # eagerly: a device


@pytest.mark.parametrize("name", ALL)
def test_all_reduce_of_a_variable_in_a_function(name):
    strategy = make(name)
    with strategy.scope():
        w = tf.Variable([1.0, 2.0])
    direct = tf.function(lambda: strategy.run(lambda: all_reduce(w)))
    read = tf.function(lambda: strategy.run(lambda: all_reduce(w.read_value())))
    assert read().numpy().tolist() == [1.0, 2.0]
    if name in MIRRORED:  # TF reads the variable colocated with its captured handle: no device
        with pytest.raises(ValueError, match=EMPTY):
            direct()
    else:
        assert direct().numpy().tolist() == [1.0, 2.0]


@pytest.mark.parametrize("name", ALL)
def test_all_reduce_of_a_variable_converted_in_a_function(name):
    # convert_to_tensor(variable) and variable.value() read outside every device scope (TF's
    # colocation with the handle): no device, so the mirrored strategies refuse their all-reduce;
    # read_value(), tf.identity and arithmetic keep the replica's device.
    strategy = make(name)
    with strategy.scope():
        w = tf.Variable([1.0, 2.0])
    refused = {
        "convert": tf.function(lambda: strategy.run(lambda: all_reduce(tf.convert_to_tensor(w)))),
        "value": tf.function(lambda: strategy.run(lambda: all_reduce(w.value()))),
    }
    allowed = {
        "identity": tf.function(lambda: strategy.run(lambda: all_reduce(tf.identity(w)))),
        "arithmetic": tf.function(lambda: strategy.run(lambda: all_reduce(w * 1.0))),
    }
    for f in refused.values():
        if name in MIRRORED:
            with pytest.raises(ValueError, match=EMPTY):
                f()
        else:
            assert f().numpy().tolist() == [1.0, 2.0]
    for f in allowed.values():
        assert f().numpy().tolist() == [1.0, 2.0]

    @tf.function
    def devices():
        return tf.convert_to_tensor(w).device, w.value().device, w.read_value().device

    assert devices() == ("", "", "")  # outside strategy.run: no device scope at all


def all_gather(v):
    return tf.distribute.get_replica_context().all_gather(v, 0)


@pytest.mark.parametrize("name", ALL)
def test_all_gather_destinations(name):
    # Only MultiWorkerMirroredStrategy's gather validates its destinations (TF's
    # CollectiveAllReduce._gather); MirroredStrategy's does not.
    strategy = make(name)
    with strategy.scope():
        w = tf.Variable([1.0, 2.0])
    x = tf.constant([1.0, 2.0])
    refused = {
        "argument": lambda: tf.function(lambda t: strategy.run(all_gather, args=(t,)))(x),
        "variable": tf.function(lambda: strategy.run(lambda: all_gather(w))),
    }
    allowed = {
        "inside": tf.function(lambda: strategy.run(lambda: all_gather(tf.constant([1.0, 2.0])))),
        "captured": tf.function(lambda: strategy.run(lambda: all_gather(x))),
        "read": tf.function(lambda: strategy.run(lambda: all_gather(w.read_value()))),
        "eager": lambda: strategy.run(all_gather, args=(x,)),
    }
    for f in refused.values():
        if name == "multi_worker":
            with pytest.raises(ValueError, match=EMPTY):
                f()
        else:
            assert f().numpy().tolist() == [1.0, 2.0]
    for f in allowed.values():
        assert f().numpy().tolist() == [1.0, 2.0]


@pytest.mark.parametrize("name", ALL)
def test_reduce_to_destinations(name):
    strategy = make(name)
    x = tf.constant([1.0, 2.0])
    ext = strategy.extended
    assert strategy.reduce("SUM", x, axis=None).numpy().tolist() == [1.0, 2.0]
    assert tf.function(lambda t: strategy.reduce("SUM", t, axis=None))(x).numpy().tolist() == [1.0, 2.0]
    assert tf.function(lambda t: ext.reduce_to("MEAN", t, t))(x).numpy().tolist() == [1.0, 2.0]
    cases = [
        (lambda: ext.reduce_to("SUM", x, None), NOT_A_DESTINATION),
        (lambda: ext.reduce_to("SUM", x, ""), EMPTY),
        (lambda: ext.batch_reduce_to("SUM", [(x, None)]), NOT_A_DESTINATION),
        (lambda: tf.function(lambda t: ext.reduce_to("SUM", t, t))(x), EMPTY),
        (lambda: tf.function(lambda t: ext.batch_reduce_to("SUM", [(t, t)]))(x), EMPTY),
    ]
    for call, message in cases:
        if name in MIRRORED:
            with pytest.raises(ValueError, match=message.replace("`", ".").replace("(", ".").replace(")", ".")):
                call()
        else:
            out = call()
            out = out[0] if isinstance(out, list) else out
            assert out.numpy().tolist() == [1.0, 2.0]


# -- 1b: merge_call in a control-flow body or a nested Function of the replica function


def _replica_programs():
    nested = tf.function(lambda v: all_reduce(v * 1.0))

    def in_loop(v):
        return tf.while_loop(lambda i, v: i < 2, lambda i, v: (i + 1, all_reduce(v * 1.0)), (0, v * 1.0))[1]

    def in_cond(v):
        return tf.cond(tf.reduce_sum(v) > 0, lambda: all_reduce(v * 1.0), lambda: v * 1.0)

    def nested_in_loop(v):
        return tf.while_loop(lambda i, v: i < 2, lambda i, v: (i + 1, nested(v)), (0, v * 1.0))[1]

    def merge_in_loop(v):
        return tf.while_loop(lambda i, v: i < 2, lambda i, v: (i + 1, merge_add_one(v)), (0, v * 1.0))[1]

    def merge_nested(v):
        return tf.function(merge_add_one)(v)

    return {
        "in_loop": in_loop,
        "in_cond": in_cond,
        "nested": lambda v: nested(v),
        "nested_in_loop": nested_in_loop,
        "merge_in_loop": merge_in_loop,
        "merge_nested": merge_nested,
    }


# (result in a Function, result eagerly; None: the merge_call RuntimeError)
EXPECTED = {
    "in_loop": ([1.0, 2.0], [1.0, 2.0]),
    "in_cond": ([1.0, 2.0], [1.0, 2.0]),
    "nested": ([1.0, 2.0], [1.0, 2.0]),
    "nested_in_loop": ([1.0, 2.0], [1.0, 2.0]),
    "merge_in_loop": ([3.0, 4.0], [3.0, 4.0]),
    "merge_nested": ([2.0, 3.0], [2.0, 3.0]),
}
# What the mirrored strategies refuse: everything in a Function; eagerly, the nested Functions
# (their traces are new graphs) but not the eager loops and conds.
REFUSED_EAGERLY = {"nested", "nested_in_loop", "merge_nested"}


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("program", sorted(EXPECTED))
def test_merge_call_in_a_body_or_nested_function_of_the_replica_function(name, program):
    strategy = make(name)
    replica_fn = _replica_programs()[program]
    x = tf.constant([1.0, 2.0])
    in_function, eager = EXPECTED[program]
    step = tf.function(lambda t: strategy.run(replica_fn, args=(t,)))
    if name in MIRRORED:
        with pytest.raises(RuntimeError, match=MERGE_ERROR):
            step(x)
    else:
        assert step(x).numpy().tolist() == in_function
    if name in MIRRORED and program in REFUSED_EAGERLY:
        with pytest.raises(RuntimeError, match=MERGE_ERROR):
            strategy.run(replica_fn, args=(x,))
    else:
        assert strategy.run(replica_fn, args=(x,)).numpy().tolist() == eager


@pytest.mark.parametrize("name", ALL)
def test_a_function_given_to_run_runs_as_a_function_of_the_run(name):
    # TF's mirrored_run calls a Function's Python function inside a Function of the whole run:
    # a merge_call in it is allowed; tensors made in it have the replica's device, its argument not.
    strategy = make(name)
    x = tf.constant([1.0, 2.0])
    assert strategy.run(tf.function(merge_add_one), args=(x,)).numpy().tolist() == [2.0, 3.0]
    assert strategy.run(tf.function(lambda v: all_reduce(v * 1.0)), args=(x,)).numpy().tolist() == [1.0, 2.0]
    nested = tf.function(lambda v: tf.function(lambda u: all_reduce(u * 1.0))(v))
    plain = tf.function(all_reduce)
    if name in MIRRORED:
        with pytest.raises(RuntimeError, match=MERGE_ERROR):
            strategy.run(nested, args=(x,))
        with pytest.raises(ValueError, match=EMPTY):
            strategy.run(plain, args=(x,))
    else:
        assert strategy.run(nested, args=(x,)).numpy().tolist() == [1.0, 2.0]
        assert strategy.run(plain, args=(x,)).numpy().tolist() == [1.0, 2.0]


# -- 1c: AutoGraph converts the replica function


def replica_with_python_control_flow(v):
    if tf.reduce_sum(v) > 0:
        v = v * 2.0
    else:
        v = v - 1.0
    for i in tf.range(3):
        v = v + tf.cast(i, tf.float32)
    return v


@pytest.mark.parametrize("name", ALL)
def test_the_replica_function_is_autograph_converted_in_a_function(name):
    strategy = make(name)
    x = tf.constant([1.0, 2.0])
    step = tf.function(lambda t: strategy.run(replica_with_python_control_flow, args=(t,)))
    assert step(x).numpy().tolist() == [5.0, 7.0]
    assert step(-x).numpy().tolist() == [1.0, 0.0]
    assert strategy.run(replica_with_python_control_flow, args=(x,)).numpy().tolist() == [5.0, 7.0]
    unconverted = tf.function(lambda t: strategy.run(replica_with_python_control_flow, args=(t,)), autograph=False)
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="as a Python `bool` is not allowed"):
        unconverted(x)
    inner_unconverted = tf.function(replica_with_python_control_flow, autograph=False)
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="as a Python `bool` is not allowed"):
        tf.function(lambda t: strategy.run(inner_unconverted, args=(t,)))(x)


def test_nccl_without_gpus_is_warned_about():
    import logging

    records = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())

    handler = Keep()
    tf.get_logger().addHandler(handler)
    try:
        options = tf.distribute.experimental.CommunicationOptions(
            implementation=tf.distribute.experimental.CommunicationImplementation.NCCL
        )
        tf.distribute.MultiWorkerMirroredStrategy(communication_options=options)
        tf.distribute.MultiWorkerMirroredStrategy(
            communication_options=tf.distribute.experimental.CommunicationOptions(implementation="RING")
        )
    finally:
        tf.get_logger().removeHandler(handler)
    nccl = [m for m in records if "NCCL" in m]
    assert nccl == ["Enabled NCCL communication but no GPUs detected/specified."]
