"""Op wrappers (private): the Python side of each op family (``array_ops``, ``math_ops``,
``nn_ops``...), each calling into ``fn._core``. Public modules (``fn.math``, ``fn.nn``...) re-export them."""
