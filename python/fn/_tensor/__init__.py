"""Tensors as Python sees them (private): ``Tensor``'s Python methods and printing,
``TensorShape`` and ``TensorSpec``."""
