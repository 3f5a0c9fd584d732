"""``fn.nn`` (``tf.nn``): neural-network ops with TensorFlow's names and arguments: activations,
convolution, pooling, bias, softmax, losses and normalisation (NHWC layout; float32 runs on oneDNN)."""

from fn._distribute.losses import compute_average_loss, scale_regularization_loss
from fn._ops.ctc_ops import ctc_loss
from fn._ops.math_ops import elu, relu, relu6, sigmoid, softplus, tanh
from fn._ops.nn_ops import (
    avg_pool2d,
    batch_normalization,
    bias_add,
    conv1d,
    conv2d,
    conv2d_transpose,
    depthwise_conv2d,
    dropout,
    embedding_lookup,
    gelu,
    l2_loss,
    l2_normalize,
    leaky_relu,
    log_softmax,
    max_pool2d,
    moments,
    sigmoid_cross_entropy_with_logits,
    silu,
    softmax,
    softmax_cross_entropy_with_logits,
    sparse_softmax_cross_entropy_with_logits,
)
from fn._ops.nn_ops import silu as swish
from fn._ops.sort_ops import top_k

# 1-D and channels-first convolution/pooling and the other names Keras' TF backend calls (issue 22);
# max_pool/avg_pool here take 1-D and 2-D inputs.
from fn._tf_compat._nn_extra import (
    avg_pool,
    avg_pool1d,
    avg_pool3d,
    conv3d,
    conv3d_transpose,
    conv_transpose,
    convolution,
    depth_to_space,
    max_pool,
    max_pool1d,
    max_pool3d,
    pool,
    selu,
    separable_conv2d,
    softsign,
    space_to_depth,
)
from fn._tf_compat._random_extra import experimental

from fn._sparse.embedding_ops import embedding_lookup_sparse, safe_embedding_lookup_sparse
from fn._public import export as _export

_export(globals())
