"""Python values used in the tf.print case table, shared by test_printing.py and the TF
generator _gen_tf_expected.py (which must not import fn)."""
import collections

try:
    import attr
except ImportError:
    attr = None

P = collections.namedtuple("P", "x y")


class O:
    def __repr__(self):
        return "O()"


if attr is not None:
    @attr.s
    class A:
        b = attr.ib()
        a = attr.ib()


def od(*pairs):
    return collections.OrderedDict(pairs)
