"""tf.random.Generator: TensorFlow's numbers for a seed (Philox: counter skipped by 256 blocks
per output, stateless V2 draws from key and counter), state as a Variable, use inside
tf.function, checkpoints, split/make_seeds, global generator and bad inputs. The literals are
TensorFlow 2.21's outputs (this file passes under TF with --against-tf)."""
import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def test_from_seed_state_and_normal():
    g = tf.random.Generator.from_seed(1234)
    assert g.algorithm == 1
    assert g.state.dtype == tf.int64 and g.state.shape == (3,) and not g.state.trainable
    assert isinstance(g.state, tf.Variable)
    assert g.state.numpy().tolist() == [1234, 0, 0]
    n = g.normal([2, 3])
    assert n.dtype == tf.float32 and n.shape == (2, 3)
    np.testing.assert_allclose(n.numpy(), [[0.9356608986854553, 1.0854305028915405, -0.937883734703064],
                                           [-0.5061547160148621, 1.3169702291488647, 0.7137578725814819]],
                               rtol=1e-6)
    assert g.state.numpy().tolist() == [2770, 0, 0]   # 1234 + 6 * 256


def test_distributions_continue_one_stream():
    g = tf.random.Generator.from_seed(1234)
    g.normal([2, 3])
    np.testing.assert_allclose(g.uniform([5]).numpy(), [0.6512613296508789, 0.9295905828475952, 0.508733868598938,
                                                        0.9571183919906616, 0.5982480049133301], rtol=1e-6)
    np.testing.assert_allclose(g.uniform([3], dtype=tf.float64).numpy(),
                               [0.8158940908375227, 0.22952769721448418, 0.6077313352496188], rtol=1e-12)
    np.testing.assert_allclose(g.normal([3], dtype=tf.float64).numpy(),
                               [-1.591311900614339, -0.5203472056197413, 1.3122934567972153], rtol=1e-12)
    ui = g.uniform([5], minval=-3, maxval=7, dtype=tf.int32)
    assert ui.dtype == tf.int32 and ui.numpy().tolist() == [-3, 6, 3, 0, 5]
    assert g.uniform([3], minval=0, maxval=2 ** 40, dtype=tf.int64).numpy().tolist() == \
        [949701821488, 981963990152, 360317602675]
    assert g.uniform_full_int([3], tf.int64).numpy().tolist() == \
        [4349126154814514282, 4892826930973716513, -5522256999433134433]
    assert g.uniform_full_int([5], tf.int32).numpy().tolist() == \
        [-275566425, 1947376101, 330488921, -854855337, -805342606]
    np.testing.assert_allclose(g.truncated_normal([6]).numpy(),
                               [-0.5811055302619934, -0.1712198108434677, 1.1999053955078125, 0.5540350675582886,
                                -1.7683298587799072, -0.2798055112361908], rtol=1e-6)
    np.testing.assert_allclose(g.truncated_normal([3], dtype=tf.float64).numpy(),
                               [0.46131759527897814, -0.41665555388047676, -0.15899857861795816], rtol=1e-12)
    assert g.state.numpy().tolist() == [11986, 0, 0]
    b = g.binomial([4], counts=[10., 100., 5., 50.], probs=[0.3, 0.5, 0.9, 0.95])
    assert b.dtype == tf.int32 and b.numpy().tolist() == [4, 54, 4, 49]
    b2 = g.binomial([2, 3, 2], counts=[[20.], [200.], [3.]], probs=[0.2, 0.7], dtype=tf.float32)
    assert b2.dtype == tf.float32
    assert b2.numpy().tolist() == [[[2.0, 11.0], [37.0, 132.0], [1.0, 1.0]], [[4.0, 12.0], [36.0, 142.0], [1.0, 2.0]]]
    assert g.state.numpy().tolist() == [600786, 0, 0]
    assert g.make_seeds(2).numpy().tolist() == [[-5138945250170859693, 7939998311754752163], [0, 0]]
    assert [x.state.numpy().tolist() for x in g.split(2)] == [[0, 0, 8142567831903708983],
                                                              [0, 0, -829426148724941459]]


def test_states_keys_and_counters():
    assert tf.random.create_rng_state([1, 2, 3, 4], "philox").numpy().tolist() == [1, 2, 3]
    assert tf.random.create_rng_state(-1, 1).numpy().tolist() == [-1, -1, -1]
    assert tf.random.create_rng_state(2 ** 64 - 1, tf.random.Algorithm.PHILOX).numpy().tolist() == [-1, 0, 0]
    assert tf.random.create_rng_state(2 ** 70 + 5, "philox").numpy().tolist() == [5, 64, 0]
    k = tf.random.Generator.from_key_counter(5, [6, 7], "philox")
    assert k.state.numpy().tolist() == [6, 7, 5]
    np.testing.assert_allclose(k.normal([2]).numpy(), [1.546481728553772, -0.6806215643882751], rtol=1e-6)
    # The counter wraps as uint64 arithmetic does.
    w = tf.random.Generator.from_state([2 ** 63 - 1, 2 ** 63 - 1, 9], "philox")
    np.testing.assert_allclose(w.normal([2]).numpy(), [-0.8330642580986023, -0.9279616475105286], rtol=1e-6)
    assert w.state.numpy().tolist() == [-9223372036854775297, 9223372036854775807, 9]


def test_reset_and_skip():
    g = tf.random.Generator.from_seed(1)
    a = g.normal([])
    b = g.normal([])
    g.reset_from_seed(1)
    assert g.normal([]).numpy() == a.numpy()
    g.reset([1, 0, 0])
    g.skip(1)
    assert g.normal([]).numpy() == b.numpy()
    g.reset_from_key_counter(0, [1, 0])
    assert g.normal([]).numpy() == a.numpy()


def test_generator_in_function_updates_state():
    g = tf.random.Generator.from_seed(1)

    @tf.function
    def f():
        return g.normal([2])

    eager = tf.random.Generator.from_seed(1)
    first, second = f(), f()
    np.testing.assert_allclose(first.numpy(), eager.normal([2]).numpy(), rtol=1e-6)
    np.testing.assert_allclose(second.numpy(), eager.normal([2]).numpy(), rtol=1e-6)
    assert g.state.numpy().tolist() == eager.state.numpy().tolist() == [1025, 0, 0]

    @tf.function
    def draws(gen, n):
        return gen.uniform([n], maxval=10, dtype=tf.int64), gen.truncated_normal([3])

    h = tf.random.Generator.from_seed(7)
    ref = tf.random.Generator.from_seed(7)
    x, t = draws(h, tf.constant(4))
    assert x.numpy().tolist() == ref.uniform([4], maxval=10, dtype=tf.int64).numpy().tolist()
    np.testing.assert_allclose(t.numpy(), ref.truncated_normal([3]).numpy(), rtol=1e-6)


def test_generator_created_in_function():
    holder = []

    @tf.function
    def f():
        if not holder:
            holder.append(tf.random.Generator.from_seed(1))
        return holder[0].normal([])

    ref = tf.random.Generator.from_seed(1)
    assert f().numpy() == ref.normal([]).numpy()
    assert f().numpy() == ref.normal([]).numpy()


def test_global_generator():
    g = tf.random.get_global_generator()
    assert g is tf.random.get_global_generator()
    assert g.normal([2]).shape == (2,)
    try:
        mine = tf.random.Generator.from_seed(3)
        tf.random.set_global_generator(mine)
        assert tf.random.get_global_generator() is mine
        tf.random.get_global_generator().reset_from_seed(30)
        assert mine.state.numpy().tolist() == [30, 0, 0]
    finally:
        tf.random.set_global_generator(g)
    nd = tf.random.Generator.from_non_deterministic_state()
    assert nd.state.shape == (3,)
    assert tf.random.experimental.Generator is tf.random.Generator


def test_checkpoint_restores_the_stream(tmp_path):
    g = tf.random.Generator.from_seed(1)
    cp = tf.train.Checkpoint(generator=g)
    g.normal([])
    path = cp.write(str(tmp_path / "ckpt"))
    after = [g.normal([]).numpy(), g.normal([]).numpy()]
    cp.restore(path)
    assert [g.normal([]).numpy(), g.normal([]).numpy()] == after


def test_copy_and_from_variable_state():
    g = tf.random.Generator.from_seed(5)
    c = tf.random.Generator(copy_from=g)
    assert c.normal([3]).numpy().tolist() == g.normal([3]).numpy().tolist()
    v = tf.Variable([5, 0, 0], dtype=tf.int64)
    s = tf.random.Generator.from_state(v, "philox")
    assert s.state is v
    s.normal([1])
    assert v.numpy().tolist() == [261, 0, 0]


def test_bad_inputs():
    with pytest.raises(ValueError, match="Argument `alg` got unsupported value bogus"):
        tf.random.Generator.from_seed(1, alg="bogus")
    with pytest.raises(TypeError, match="Can't convert argument `alg`"):
        tf.random.Generator.from_seed(1, alg=1.5)
    g3 = tf.random.Generator.from_seed(1, alg="threefry")
    assert g3.state.numpy().tolist() == [1, 0]
    with pytest.raises(tf.errors.UnimplementedError, match="Non-XLA devices don't support the ThreeFry algorithm"):
        g3.normal([2])
    g = tf.random.Generator.from_seed(1)
    with pytest.raises(ValueError, match="minval and maxval must be both `None` or both non-`None`"):
        g.uniform([2], maxval=3, minval=None, dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Need minval < maxval, got 5 >= 5"):
        g.uniform([2], minval=5, maxval=5, dtype=tf.int32)
    with pytest.raises(ValueError):
        tf.random.Generator.from_state([1, 2], "philox")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Shape passed in must end with broadcasted shape"):
        g.binomial([3], counts=[1., 2.], probs=0.5)
    counts, probs = tf.constant([1., 2.]), tf.constant([0.5, 0.5], tf.float64)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"input #4\(zero-based\) was expected to be a float "
                                                              r"tensor but is a double tensor"):
        g.binomial([2], counts=counts, probs=probs)
    with pytest.raises(TypeError, match="Input 'probs' of 'StatefulRandomBinomial' Op has type float64 that does not "
                                        "match type float32 of argument 'counts'"):
        tf.function(lambda: g.binomial([2], counts=counts, probs=probs))()


def test_uniform_full_int_default_dtype_is_uint64():
    # TF's default dtype; unsigned draws hold the bits of the signed ones of the same width
    g = tf.random.Generator.from_seed(1234)
    want64 = g.uniform_full_int([3], tf.int64).numpy()
    want32 = g.uniform_full_int([5], tf.int32).numpy()
    g = tf.random.Generator.from_seed(1234)
    u = g.uniform_full_int([3])
    assert u.dtype == tf.uint64
    assert u.numpy().tolist() == want64.astype(np.uint64).tolist()
    assert u.numpy().tolist() == [472453817354278855, 4059409125917362668, 18380845769304944363]
    u32 = g.uniform_full_int([5], tf.uint32)
    assert u32.dtype == tf.uint32 and u32.numpy().tolist() == want32.astype(np.uint32).tolist()
    u2 = g.uniform([2], dtype=tf.uint64, minval=None, maxval=None)  # integer uniform without bounds: full range
    assert u2.dtype == tf.uint64
    g = tf.random.Generator.from_seed(1234)
    f = tf.function(lambda: g.uniform_full_int([3]))
    assert f().numpy().tolist() == want64.astype(np.uint64).tolist()
    with pytest.raises((TypeError, tf.errors.InvalidArgumentError)):
        g.uniform_full_int([2], tf.float32)


def test_saved_model_keeps_the_state_and_calls(tmp_path):
    class M(tf.Module):
        def __init__(self):
            super().__init__()
            self.g = tf.random.Generator.from_seed(0)

        @tf.function
        def __call__(self):
            return self.g.normal([])

        @tf.function
        def state(self):
            return self.g.state

    m = M()
    m()
    m.state()
    tf.saved_model.save(m, str(tmp_path / "m"))
    expected = m()   # the saved state continues with this draw
    imported = tf.saved_model.load(str(tmp_path / "m"))
    assert imported.state().numpy().tolist() == [256, 0, 0]
    assert imported().numpy() == expected.numpy()   # __call__ of a loaded object is callable
    assert imported.state().numpy().tolist() == [512, 0, 0]


def test_truncated_normal_ops_are_tf_numbers():
    # tf.random.truncated_normal (stateful TruncatedNormal op) and the stateless form.
    np.testing.assert_allclose(tf.random.truncated_normal([5], seed=3).numpy(),
                               [1.0616620779037476, -0.8785783052444458, 0.11187215894460678, 0.18511717021465302,
                                -0.16233478486537933], rtol=1e-5)
    np.testing.assert_allclose(tf.random.truncated_normal([3], seed=3, dtype=tf.float64).numpy(),
                               [-1.9891512607565875, 0.8613319661711827, 0.5001542461196736], rtol=1e-12)
    tf.random.set_seed(11)
    try:
        np.testing.assert_allclose(tf.random.truncated_normal([6], mean=1., stddev=2.).numpy(),
                                   [-2.0458943843841553, 2.3390893936157227, -0.28493940830230713,
                                    3.8600857257843018, 0.1791437268257141, 0.2634086012840271], rtol=1e-5)
    finally:
        tf.random.set_seed(None)
    np.testing.assert_allclose(tf.random.stateless_truncated_normal([5], seed=[1, 2]).numpy(),
                               [0.544110119342804, 0.20738030970096588, 0.0735643208026886, 0.04643455147743225,
                                0.16820591688156128], rtol=1e-5)
    np.testing.assert_allclose(tf.random.stateless_truncated_normal([3], seed=[7, -4], dtype=tf.float64,
                                                                    mean=1.).numpy(),
                               [1.4100152493885993, 1.160883226543936, 1.4952758006973033], rtol=1e-12)
