"""tf.data's implementation (private): ``Dataset``, its sources and transformations,
iterators and element structures. ``fn.data`` re-exports."""
