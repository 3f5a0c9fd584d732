# fn._core is the C++ extension (cpp/bindings/); to type checkers every name in it is Any until
# its bindings carry signatures.
from typing import Any

def __getattr__(name: str) -> Any: ...
