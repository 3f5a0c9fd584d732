"""Runs one test case's script in a child process (virtual CPUs must be configured before the
runtime starts) under fn or TF, and returns the ``out`` dict it printed."""

import json
import os
import subprocess
import sys
import textwrap

from tfbackend import IS_TF, fn_import_root


def run_case(prelude: str, body: str, tmp_path) -> dict:
    """``prelude`` + ``body`` as a script file (so that AutoGraph can read its Functions' source),
    run with this backend; its ``out`` dict is printed after a ``RESULT`` marker and returned."""
    script = prelude + textwrap.dedent(body) + "\nprint('RESULT' + json.dumps(out))\n"
    env = dict(os.environ)
    if not IS_TF:
        env["PYTHONPATH"] = fn_import_root() + os.pathsep + env.get("PYTHONPATH", "")
    path = tmp_path / "case.py"
    path.write_text(script)
    proc = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT")][-1]
    return json.loads(line[len("RESULT") :])
