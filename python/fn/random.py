"""``fn.random`` (``tf.random``): random ops with TensorFlow's seed scheme, and
``tf.random.Generator`` (issue 21)."""

from fn._ops.random_ops import (
    categorical,
    normal,
    set_seed,
    shuffle,
    stateless_normal,
    stateless_truncated_normal,
    stateless_uniform,
    truncated_normal,
    uniform,
)
from fn._random.generator import (
    Algorithm,
    Generator,
    create_rng_state,
    experimental_module,
    get_global_generator,
    set_global_generator,
)

from fn._tf_compat._random_extra import stateless_categorical

from fn._public import export as _export

experimental = experimental_module(__name__)  # tf.random.experimental: the Generator API's older names

_export(globals(), hide=["experimental_module"])
