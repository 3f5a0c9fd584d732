"""``python -m fn.run SCRIPT [args]`` / ``python -m fn.run -m MODULE [args]``: run an unmodified
TensorFlow program on fn.

The command line has ``python``'s shape: the script (or module) sees ``sys.argv`` as it would under
``python SCRIPT args``, runs as ``__main__``, and ``import tensorflow`` inside it is fn (see
``fn.experimental.install_as_tensorflow``). ``KERAS_BACKEND`` defaults to ``tensorflow``, so
``tf.keras`` and ``import keras`` are the real Keras 3 running on fn.
"""

from __future__ import annotations

import os
import runpy
import sys
from typing import List, Optional

_USAGE = (
    "usage: python -m fn.run SCRIPT [args ...]\n"
    "       python -m fn.run -m MODULE [args ...]\n"
    "Runs a TensorFlow program with `import tensorflow` resolving to fn."
)


def main(argv: Optional[List[str]] = None) -> int:
    """Runs the program named by ``argv`` (default ``sys.argv[1:]``) with fn as tensorflow."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(_USAGE, file=sys.stderr if not args else sys.stdout)
        return 2 if not args else 0
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    from fn._tf_compat import install_as_tensorflow

    install_as_tensorflow()
    if args[0] == "-m":
        if len(args) < 2:
            print("python -m fn.run: -m needs a module name\n" + _USAGE, file=sys.stderr)
            return 2
        module = args[1]
        sys.argv = [module] + args[2:]  # runpy replaces argv[0] with the module's file
        if not sys.path or sys.path[0] not in ("", os.getcwd()):
            sys.path.insert(0, os.getcwd())  # as `python -m` does
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    else:
        script = args[0]
        sys.argv = args
        # `python SCRIPT` puts the script's folder first on sys.path (not the working directory).
        sys.path[0:1] = [os.path.dirname(os.path.abspath(script))]
        runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
