"""fn's file formats of ``tf.io``/``tf.train``: TFRecord files (``_tfrecord``), the
``tf.train.Example`` protocol buffers (``_example_pb``) and their parsing (``_parsing``)."""
