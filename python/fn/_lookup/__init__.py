"""``tf.lookup``'s tables and their initializers (public names in ``fn.lookup``)."""
