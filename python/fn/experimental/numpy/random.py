"""``tf.experimental.numpy.random``."""

from __future__ import annotations

from fn._numpy._random import poisson, rand, randint, randn, random, seed, standard_normal, uniform

__all__ = ["poisson", "rand", "randint", "randn", "random", "seed", "standard_normal", "uniform"]

from fn._public import export as _export

_export(globals())
