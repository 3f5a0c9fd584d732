"""tf.function's core (private): ``Function`` and its trace cache, argument binding and
``FunctionType``, ``ConcreteFunction``, the graph views TF shows (``FuncGraph``, ``GraphDef``),
input signatures, retracing explanations, name scopes and graph pictures."""
