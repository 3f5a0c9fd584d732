"""Print the include and library folders of oneDNN installed from Intel's PyPI wheels.

The wheels `onednn-devel-cpu-gomp` (headers, CMake config) and `onednn-cpu-gomp` (libdnnl.so.3)
install as data files under an installation prefix (a venv, or pip's isolated build prefix),
so we ask importlib.metadata where their files landed instead of guessing the prefix.
Prints two lines: include dir, library file. Exits 1 when not found.
"""
import sys
from importlib import metadata


def _find(dist_name: str, suffix: str):
    try:
        dist = metadata.distribution(dist_name)
    except metadata.PackageNotFoundError:
        return None
    for f in dist.files or []:
        if str(f).replace("\\", "/").endswith(suffix):
            return dist.locate_file(f).resolve()
    return None


def main() -> int:
    header = _find("onednn-devel-cpu-gomp", "oneapi/dnnl/dnnl.hpp")
    lib = _find("onednn-cpu-gomp", "libdnnl.so.3")
    if header is None or lib is None:
        print("oneDNN wheels not found: pip install onednn-devel-cpu-gomp==2023.2.0", file=sys.stderr)
        return 1
    print(header.parent.parent.parent)  # .../include
    print(lib)
    return 0


if __name__ == "__main__":
    sys.exit(main())
