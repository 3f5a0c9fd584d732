"""``tf.nn.ctc_loss`` (TF 2's ``ctc_loss_v3``): Connectionist Temporal Classification loss.

The computation is TF's dense-label one (``ctc_loss_dense``): the batched forward-backward
algorithm in the log domain (Sim et al., 2017) over CTC's alignment states, label states
``0..L`` and blank states ``L+1..2L+1`` per sequence, with TF's ``log(1e-307)`` standing in for
``log(0)`` in the initial/final state masks (so an impossible alignment gives a large finite loss,
as TF's dense path does). The gradient is the one the algorithm yields, ``softmax(logits) -
occupancy``, attached by ``custom_gradient`` as TF does. ``SparseTensor`` labels (TF's ``CTCLoss``
kernel with the blank moved last) are densified and take the same path: the same loss for every
alignable sequence. ``unique`` is TF's memory optimisation and does not change the result.
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence

import numpy as np

from fn import nest
from fn._autodiff.custom_gradient import custom_gradient
from fn._ops.array_ops import (
    cast,
    concat,
    convert_to_tensor,
    expand_dims,
    gather,
    one_hot,
    ones,
    pad,
    range as _range,
    reshape,
    scatter_nd,
    shape,
    squeeze,
    stack,
    tile,
    transpose,
    where,
    zeros,
)
from fn._ops.control_flow_ops import while_loop
from fn._ops.manip_ops import eye, sequence_mask, tensor_scatter_nd_update
from fn._ops.math_ops import equal, exp, less, log, reduce_logsumexp, reduce_sum
from fn._ops.nn_ops import log_softmax
from fn.dtypes import bfloat16, float16, float32, int32

# TF's stand-in for log(0) in the state masks: float32(log(float64(0) + 1e-307)).
_LOG_0 = float(np.float32(np.log(1e-307)))


def _dim(t: Any, i: int) -> Any:
    """``t.shape[i]`` when static, else the dynamic size (TF's ``_get_dim``)."""
    d = t.shape[i]
    return d if d is not None else shape(t)[i]


def _state_trans(labels: Any) -> Any:
    """[batch, S, S] transition matrix (S = 2 (L + 1)): start -> first label, blank <-> label,
    self loops, and label -> next label unless the two labels repeat."""
    batch, num_labels = _dim(labels, 0), _dim(labels, 1)
    num_label_states = num_labels + 1
    num_states = 2 * num_label_states
    label_states = _range(num_label_states)
    blank_states = label_states + num_label_states
    start_to_label = convert_to_tensor([[1, 0]], int32)
    blank_to_label = stack([label_states[1:], blank_states[:-1]], 1)
    label_to_blank = stack([blank_states, label_states], 1)
    indices = concat([start_to_label, blank_to_label, label_to_blank], 0)
    trans = scatter_nd(indices, ones([_dim(indices, 0)]), [num_states, num_states])
    trans += eye(num_states)
    batch_idx = zeros(shape(label_states[2:]), int32)
    idx = stack([batch_idx, label_states[2:], label_states[1:-1]], 1)
    idx = tile(expand_dims(idx, 0), [batch, 1, 1])
    idx += expand_dims(expand_dims(_range(batch), 1) * convert_to_tensor([1, 0, 0], int32), 1)
    repeats = equal(labels[:, :-1], labels[:, 1:])
    values = 1.0 - cast(repeats, float32)
    label_to_label = scatter_nd(idx, values, [batch, num_states, num_states])
    return expand_dims(trans, 0) + label_to_label


def _initial_final_log_probs(label_length: Any, max_label_length: Any) -> Any:
    batch = _dim(label_length, 0)
    num_label_states = max_label_length + 1
    num_states = 2 * num_label_states
    initial = one_hot(zeros([batch], int32), num_states, on_value=0.0, off_value=_LOG_0, axis=1)
    label_final = one_hot(label_length, num_label_states, axis=0)
    final_mask = ones([2, 1, batch]) * label_final
    final = reshape((1.0 - final_mask) * _LOG_0, [num_states, batch])
    return initial, transpose(final)


def _ilabel_to_state(labels: Any, num_labels: Any, ilabel_log_probs: Any) -> Any:
    """[T, B, C] class log-probs -> [T, B, S] state log-probs (state 0 is the start state)."""
    num_label_states = _dim(labels, 1)
    blank = tile(ilabel_log_probs[:, :, :1], [1, 1, num_label_states + 1])
    oh = expand_dims(one_hot(labels, num_labels), 0)
    state = reduce_sum(expand_dims(ilabel_log_probs, 2) * oh, axis=3)
    state = concat([state, blank], 2)
    return pad(state, [[0, 0], [0, 0], [1, 0]], constant_values=float("-inf"))


def _state_to_olabel(labels: Any, num_labels: Any, states: Any) -> Any:
    """[T, B, S] state log-probs -> [T, B, C] class log-probs (summed over the states of a class)."""
    num_label_states = _dim(labels, 1) + 1
    label_states = states[:, :, 1:num_label_states]
    blank_states = states[:, :, num_label_states:]
    oh = expand_dims(one_hot(labels - 1, num_labels - 1, on_value=0.0, off_value=float("-inf")), 0)
    label_olabels = reduce_logsumexp(expand_dims(label_states, 3) + oh, axis=2)
    blank_olabels = reduce_logsumexp(blank_states, axis=2, keepdims=True)
    return concat([blank_olabels, label_olabels], -1)


def _scan(fn: Callable, elems: Any, initial: Any, reverse: bool = False) -> Any:
    """TF's inclusive ``_scan``: the accumulators after each element, with the initial value at
    the start (or at the end, ``reverse``) of the [n + 1, ...] outputs."""
    flat_elems = [convert_to_tensor(x) for x in nest.flatten(elems)]
    flat_init = [convert_to_tensor(x) for x in nest.flatten(initial)]
    n = shape(flat_elems[0])[0]
    init_i = n - 1 if reverse else convert_to_tensor(0, int32)
    outs = []
    for acc in flat_init:
        out = zeros(concat([reshape(n + 1, [1]), shape(acc)], 0), acc.dtype)
        outs.append(tensor_scatter_nd_update(out, reshape(init_i + (1 if reverse else 0), [1, 1]), expand_dims(acc, 0)))
    k = len(flat_init)

    def cond(i: Any, *args: Any) -> Any:
        return i >= 0 if reverse else i < n

    def body(i: Any, *args: Any) -> List[Any]:
        out = args[:k]
        sl = [gather(e, i) for e in flat_elems]
        acc = nest.flatten(fn(nest.pack_sequence_as(initial, list(args[k:])), nest.pack_sequence_as(elems, sl)))
        at = reshape(i if reverse else i + 1, [1, 1])
        new_out = [tensor_scatter_nd_update(o, at, expand_dims(a, 0)) for o, a in zip(out, acc)]
        return [i - 1 if reverse else i + 1] + new_out + list(acc)

    res = while_loop(cond, body, [init_i] + outs + flat_init)
    return nest.pack_sequence_as(initial, list(res[1 : k + 1]))


def _forward_backward_log(trans_log: Any, initial: Any, final: Any, observed: Any, seq_len: Any) -> Any:
    """Forward-backward in log space: (per-frame state occupancy [T, B, S], log-likelihood [B])."""
    bwd_trans_log = transpose(trans_log, [0, 2, 1])
    batch = _dim(observed, 1)

    def forward(state: Any, obs: Any) -> Any:
        state = reduce_logsumexp(expand_dims(state, 1) + trans_log, axis=-1) + obs
        return state - reduce_logsumexp(state, axis=-1, keepdims=True)

    fwd = _scan(forward, observed, initial)

    def backward(accs: Any, elems: Any) -> Any:
        state, cum = accs
        obs, m = elems
        state = reduce_logsumexp(expand_dims(state + obs, 1) + bwd_trans_log, axis=-1)
        total = reduce_logsumexp(state, axis=-1, keepdims=True)
        state -= total
        cum += squeeze(total, axis=[-1]) * m
        bm = expand_dims(m, 1)
        return state * bm + final * (1.0 - bm), cum

    mask = transpose(sequence_mask(seq_len, _dim(observed, 0), float32), [1, 0])
    bwd, cum = _scan(backward, (observed, mask), (final, zeros([batch])), reverse=True)
    fb = fwd[1:] + bwd[1:]
    fb -= reduce_logsumexp(fb, axis=2, keepdims=True)
    fb += log(expand_dims(mask, 2))
    return fb, bwd[0, :, 0] + cum[0]


def _loss_and_grad(logits: Any, labels: Any, label_length: Any, logit_length: Any) -> Any:
    num_labels = _dim(logits, 2)
    ilabel_log_probs = log_softmax(logits)
    state_log_probs = _ilabel_to_state(labels, num_labels, ilabel_log_probs)
    initial, final = _initial_final_log_probs(label_length, _dim(labels, 1))
    fb, log_likelihood = _forward_backward_log(log(_state_trans(labels)), initial, final, state_log_probs, logit_length)
    olabel = _state_to_olabel(labels, num_labels, fb)
    grad = exp(ilabel_log_probs) - exp(olabel)
    logit_mask = transpose(sequence_mask(logit_length, _dim(logits, 0), float32), [1, 0])
    return -log_likelihood, grad * expand_dims(logit_mask, 2)


def _sparse_to_dense_labels(labels: Any) -> Any:
    """(dense [batch, max_len] labels, lengths [batch]) of a 2-D SparseTensor of labels."""
    from fn._sparse.sparse_ops import to_dense

    dense = to_dense(labels)
    idx = labels.indices
    # A row's labels are its entries (TF's CTCLoss reads them in order from column 0).
    lengths = scatter_nd(idx[:, :1], ones(shape(idx)[:1], int32), reshape(cast(labels.dense_shape[0], int32), [1]))
    return dense, lengths


def ctc_loss(
    labels: Any,
    logits: Any,
    label_length: Any,
    logit_length: Any,
    logits_time_major: bool = True,
    unique: Any = None,
    blank_index: Optional[int] = None,
    name: Optional[str] = None,
) -> Any:
    """``tf.nn.ctc_loss``: negative log-probability of each label sequence, shape [batch].

    ``logits`` [frames, batch, classes] (``logits_time_major=False``: [batch, frames, classes]),
    ``labels`` dense [batch, max_label_length] padded (with ``label_length``) or a SparseTensor
    (then ``blank_index`` is required), ``logit_length`` [batch]. The blank class is
    ``blank_index`` (default 0; negative counts from the end). float16/bfloat16 logits are
    computed in float32 and the loss cast back, as TF."""
    from fn._sparse.sparse_tensor import SparseTensor

    if isinstance(labels, SparseTensor):
        if blank_index is None:
            raise ValueError("Argument `blank_index` must be provided when `labels` is a `SparseTensor`.")
        labels, label_length = _sparse_to_dense_labels(labels)
    if blank_index is None:
        blank_index = 0
    logits = convert_to_tensor(logits, name="logits")
    labels = convert_to_tensor(labels, name="labels")
    label_length = convert_to_tensor(label_length, name="label_length")
    logit_length = convert_to_tensor(logit_length, name="logit_length")
    orig_dtype = logits.dtype
    if orig_dtype in (float16, bfloat16):
        logits = cast(logits, float32)
    if not logits_time_major:
        logits = transpose(logits, [1, 0, 2])
    if blank_index != 0:
        if blank_index < 0:
            blank_index += _dim(logits, 2)
        logits = concat(
            [logits[:, :, blank_index : blank_index + 1], logits[:, :, :blank_index], logits[:, :, blank_index + 1 :]],
            2,
        )
        labels = where(less(labels, blank_index), labels + 1, labels)

    @custom_gradient
    def compute_ctc_loss(logits_t: Any, labels_t: Any, label_length_t: Any, logit_length_t: Any) -> Any:
        loss, grad = _loss_and_grad(logits_t, labels_t, label_length_t, logit_length_t)

        def grad_fn(dloss: Any) -> Sequence[Any]:
            return [reshape(dloss, [1, -1, 1]) * grad, None, None, None]

        return loss, grad_fn

    loss = compute_ctc_loss(logits, labels, label_length, logit_length)
    if orig_dtype in (float16, bfloat16):
        loss = cast(loss, orig_dtype)
    return loss
