"""SparseTensor and the ``tf.sparse`` ops (implementation of ``fn.sparse``)."""
