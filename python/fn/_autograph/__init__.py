"""AutoGraph's implementation (private): source analysis, the AST transformer, the
converter and cache, the operators that converted code calls. ``fn.autograph`` re-exports."""
