"""Shim of ``tensorflow.python.ops.linalg.sparse.sparse_csr_matrix_ops``: the three functions Keras'
``ops.matmul`` of two SparseTensors uses. fn has no CSR kernel: a "CSR matrix" here holds its
SparseTensor, and the product is computed densely and made sparse again (same values as TF)."""

from __future__ import annotations

from typing import Any


class _CSRSparseMatrix:
    def __init__(self, sparse: Any) -> None:
        self.sparse = sparse


def sparse_tensor_to_csr_sparse_matrix(indices: Any, values: Any, dense_shape: Any) -> _CSRSparseMatrix:
    import fn

    return _CSRSparseMatrix(fn.sparse.SparseTensor(indices, values, dense_shape))


def sparse_matrix_sparse_mat_mul(a: Any, b: Any, type: Any = None, **unused: Any) -> _CSRSparseMatrix:
    import fn

    product = fn.matmul(fn.sparse.to_dense(a.sparse), fn.sparse.to_dense(b.sparse))
    return _CSRSparseMatrix(fn.sparse.from_dense(product))


def csr_sparse_matrix_to_sparse_tensor(matrix: _CSRSparseMatrix, type: Any = None) -> Any:
    return matrix.sparse  # has .indices, .values, .dense_shape as TF's result tuple
