"""Helpers for tests that compare GraphDef text with TensorFlow's."""
import re


def functions_sorted(text: str) -> str:
    """The text with its library's functions as a sorted list: TF writes them in hash order, so
    their order depends on the (masked) numbers in their names."""
    head, sep, rest = text.partition("library {\n")
    if not sep:
        return text
    body, _, tail = rest.partition("\n}\nversions {")
    blocks = re.split(r"(?m)^(?=  function \{)", body)
    return head + sep + "".join(sorted(b.rstrip("\n") + "\n" for b in blocks if b)) + "}\nversions {" + tail
