"""``tf.io.gfile``: file access on the local file system (``GFile``, ``exists``, ``rmtree``...)."""

from fn._io.gfile import (
    GFile,
    copy,
    exists,
    glob,
    isdir,
    join,
    listdir,
    makedirs,
    mkdir,
    remove,
    rename,
    rmtree,
    stat,
    walk,
)

from fn._public import export as _export

_export(globals())
