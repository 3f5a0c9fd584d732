"""Gradients of the shape and data-movement ops against central finite differences (float64).

Each registered rule is run directly (gradcheck.check_op_gradient), then whole computations
through fn.GradientTape, eagerly and traced (gradcheck.check_tape_gradient).
"""
import numpy as np
import pytest

import fn
from gradcheck import check_op_gradient

rng = np.random.default_rng(0)


def r(*shape):
    return rng.standard_normal(shape)


def i32(v):
    return fn.constant(np.asarray(v, np.int32))


def test_reshape_expand_squeeze():
    check_op_gradient("Reshape", [r(2, 3), i32([3, -1])], wrt=[0], none=[1])
    check_op_gradient("ExpandDims", [r(2, 3), i32(1)], wrt=[0], none=[1])
    check_op_gradient("Squeeze", [r(2, 1, 3, 1)], {"squeeze_dims": [1]})
    check_op_gradient("Squeeze", [r(1, 3, 1)])


def test_transpose():
    check_op_gradient("Transpose", [r(2, 3, 4), i32([2, 0, 1])], wrt=[0], none=[1])


def test_concat_pack_unpack_split():
    check_op_gradient("ConcatV2", [r(2, 3), r(2, 1), r(2, 2), i32(1)], {"N": 3}, wrt=[0, 1, 2], none=[3])
    check_op_gradient("ConcatV2", [r(1, 3), r(2, 3), i32(-2)], {"N": 2}, wrt=[0, 1])
    check_op_gradient("Pack", [r(2, 3), r(2, 3)], {"axis": 1, "N": 2}, wrt=[0, 1])
    check_op_gradient("Unpack", [r(3, 2)], {"num": 2, "axis": 1})
    check_op_gradient("Split", [i32(1), r(2, 4)], {"num_split": 2}, wrt=[1], none=[0])
    check_op_gradient("SplitV", [r(5, 2), i32([1, -1, 2]), i32(0)], {"num_split": 3}, wrt=[0], none=[1, 2])


def test_split_gradient_with_missing_output_gradients():
    x = fn.constant(r(4, 2))
    outs = fn._core.execute("Split", [i32(0), x], {"num_split": 2})
    g = fn._core._op_gradient("Split", [i32(0), x], {"num_split": 2}, outs, [None, fn.ones([2, 2], fn.float64)])
    assert g[1].numpy().tolist() == [[0, 0], [0, 0], [1, 1], [1, 1]]


def test_pad_slice_strided_slice():
    check_op_gradient("Pad", [r(2, 3), i32([[1, 0], [2, 1]])], wrt=[0], none=[1])
    check_op_gradient("PadV2", [r(2, 3), i32([[0, 1], [1, 1]]), fn.constant(2.0, fn.float64)], wrt=[0], none=[1, 2])
    check_op_gradient("Slice", [r(3, 4), i32([1, 0]), i32([2, -1])], wrt=[0], none=[1, 2])
    masks = {"begin_mask": 1, "end_mask": 0, "shrink_axis_mask": 4, "new_axis_mask": 0, "ellipsis_mask": 0}
    check_op_gradient("StridedSlice", [r(4, 5, 3), i32([0, 4, 1]), i32([0, 0, 2]), i32([2, -2, 1])], masks,
                      wrt=[0], none=[1, 2, 3])
    check_op_gradient("StridedSliceGrad", [i32([4, 3]), i32([1, 0]), i32([3, 3]), i32([1, 2]), r(2, 2)],
                      wrt=[4], none=[0, 1, 2, 3])


def test_gather_gather_nd_scatter():
    check_op_gradient("GatherV2", [r(4, 3), i32([3, 0, 3]), i32(0)], wrt=[0], none=[1, 2])
    check_op_gradient("GatherV2", [r(2, 4, 3), i32([[1, 1], [0, 3]]), i32(1)], wrt=[0], none=[1, 2])
    check_op_gradient("GatherV2", [r(2, 3, 4), i32([3, 0]), i32(-1)], wrt=[0], none=[1, 2])
    check_op_gradient("GatherNd", [r(3, 4), i32([[0, 1], [2, 3], [0, 1]])], wrt=[0], none=[1])
    check_op_gradient("ScatterNd", [i32([[1], [1], [0]]), r(3, 2), i32([4, 2])], wrt=[1], none=[0, 2])
    check_op_gradient("UnsortedSegmentSum", [r(4, 2), i32([0, 2, 0, 1]), i32(3)], wrt=[0], none=[1, 2])


def test_select_without_broadcasting():
    c = fn.constant(np.array([[True, False, True], [False, False, True]]))
    check_op_gradient("SelectV2", [c, r(2, 3), r(2, 3)], wrt=[1, 2], none=[0])


def test_select_with_broadcasting_and_tile():
    check_op_gradient("SelectV2", [fn.constant(np.array([True, False, True])), r(2, 3), r(3)], wrt=[1, 2], none=[0])
    check_op_gradient("Tile", [r(2, 3), i32([2, 3])], wrt=[0], none=[1])


def test_non_differentiable_ops_have_no_rule():
    for op in ["Shape", "Size", "Rank", "StopGradient", "Range", "OneHot", "Where", "ZerosLike", "RandomUniform"]:
        with pytest.raises(fn.errors.NotFoundError, match="No gradient defined"):
            fn._core._op_gradient(op, [], None, [], [])


def test_gradient_tape_through_slicing_and_reshapes():
    x = fn.constant(r(3, 4))
    with fn.GradientTape() as tape:
        tape.watch(x)
        y = fn.reshape(fn.transpose(x)[1:3, ::2], [-1])
        z = fn.concat([y, fn.gather(y, [0, 0])], 0)
    g = tape.gradient(z, x).numpy()
    want = np.zeros((3, 4))
    want[0, 1] += 1 + 2
    want[2, 1] += 1
    want[0, 2] += 1
    want[2, 2] += 1
    np.testing.assert_allclose(g, want)


TAPE_CASES = {
    "reshape_transpose": (lambda x: fn.transpose(fn.reshape(x, [3, -1]), [1, 0]), [r(2, 6)]),
    "expand_squeeze": (lambda x: fn.squeeze(fn.expand_dims(x, 1), [1]) * x, [r(3, 2)]),
    "getitem": (lambda x: x[1:, ::-2, None, 0], [r(3, 4, 2)]),
    "getitem_tensor_index": (lambda x: x[fn.constant(1)] + x[-1], [r(3, 4)]),
    "concat_stack_unstack": (lambda x, y: fn.stack(fn.unstack(fn.concat([x, y, x], 1), axis=1)[1:4]), [r(2, 2), r(2, 3)]),
    "split": (lambda x: fn.split(x, [1, 2], axis=1)[1] * fn.split(x, 3, axis=1)[0], [r(2, 3)]),
    "tile_pad": (lambda x: fn.pad(fn.tile(x, [2, 1]), [[1, 0], [0, 2]], constant_values=3.0), [r(2, 3)]),
    "gather": (lambda x: fn.gather(x, [[2, 0], [2, 2]], axis=1), [r(2, 3, 2)]),
    "gather_nd": (lambda x: fn.gather_nd(x, [[0, 1], [1, 2], [0, 1]]), [r(2, 3)]),
    "slice": (lambda x: fn.slice(x, [1, 0], [-1, 2]), [r(3, 3)]),
    "where": (lambda x, y: fn.where(x > 0.0, x * y, y), [r(2, 3), r(3)]),
    "shape_arithmetic": (lambda x: fn.reshape(x, [fn.shape(x)[0], -1]) * 2.0, [r(2, 2, 2)]),
}


@pytest.mark.parametrize("name", sorted(TAPE_CASES))
def test_tape_gradients_match_finite_differences(name):
    from gradcheck import check_tape_gradient
    f, xs = TAPE_CASES[name]
    check_tape_gradient(f, xs)
    # the same computation traced: the gradient graph is built from the same rules
    check_tape_gradient(fn.function(f), xs)
