"""Process-wide runtime (private): devices (``tf.device``, ``tf.config``'s device lists)
and fn's logger."""
