"""Automatic differentiation (private): ``GradientTape``, jacobians, forward-mode
accumulators and ``custom_gradient``."""
