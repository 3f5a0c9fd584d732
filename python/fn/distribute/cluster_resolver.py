"""``fn.distribute.cluster_resolver`` (``tf.distribute.cluster_resolver``): where a task sits in
its cluster. ``MPIClusterResolver`` (fn's addition) reads it from MPI."""

from __future__ import annotations

from fn._distribute import ClusterResolver, MPIClusterResolver, SimpleClusterResolver, TFConfigClusterResolver

from fn._public import export as _export

_export(globals())
