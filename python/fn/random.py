"""``fn.random`` (``tf.random``): random ops with TensorFlow's seed scheme."""

from fn._ops.random_ops import categorical, normal, set_seed, shuffle, stateless_normal, stateless_uniform, uniform

from fn._public import export as _export

_export(globals())
