"""``tf.experimental.numpy`` on fn tensors (the public module is ``fn.experimental.numpy``)."""
