"""State (private): ``Variable``, ``Module`` and the trackable-object graph, and the
on-disk helpers that checkpoints and SavedModels share."""
