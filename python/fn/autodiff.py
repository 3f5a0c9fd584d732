"""``fn.autodiff`` (``tf.autodiff``): reverse mode (``GradientTape``) and forward mode
(``ForwardAccumulator``)."""

from __future__ import annotations

from fn._autodiff.forward import ForwardAccumulator
from fn._autodiff.tape import GradientTape

from fn._public import export as _export

_export(globals())
