"""``fn.keras`` (``tf.keras``): the real Keras 3 package on its TensorFlow backend, running on fn.

Importing this module imports Keras (``pip install 'fn[keras]'``) and replaces itself with
``keras._tf_keras.keras``, the module TensorFlow 2.21's ``tf.keras`` is.
"""

import sys

from fn._keras import load_keras

sys.modules[__name__] = load_keras()
