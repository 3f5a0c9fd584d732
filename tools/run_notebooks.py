"""Runs the guide notebooks headlessly and writes executed copies (with outputs) to
notebooks/executed/. Prints each cell's output as it comes, then a summary."""
from __future__ import annotations

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "notebooks"
OUT = SRC / "executed"


def text_of(output: dict) -> str:
    if output.get("output_type") == "stream":
        return output.get("text", "")
    if output.get("output_type") in ("execute_result", "display_data"):
        return output.get("data", {}).get("text/plain", "") + "\n"
    if output.get("output_type") == "error":
        return f"{output.get('ename')}: {output.get('evalue')}\n"
    return ""


def main() -> int:
    OUT.mkdir(exist_ok=True)
    failures = 0
    for path in sorted(SRC.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        start = time.perf_counter()
        client = NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=True,
                                resources={"metadata": {"path": str(SRC)}})
        try:
            client.execute()
        except CellExecutionError as e:  # allow_errors=True records errors in the outputs instead
            print(e, file=sys.stderr)
        errors = 0
        print(f"===== {path.name}")
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            for o in cell.get("outputs", []):
                sys.stdout.write(text_of(o))
                errors += o.get("output_type") == "error"
        nbformat.write(nb, OUT / path.name)
        print(f"----- {path.name}: {time.perf_counter() - start:.1f} s, {errors} cells raised "
              f"(some are the guide's deliberate errors), written to {OUT / path.name}")
        failures += 0
    return failures


if __name__ == "__main__":
    sys.exit(main())
