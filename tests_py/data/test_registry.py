"""Dataset's methods find the datasets that subclass it by name (fn._data.registry)."""
import pytest

import fn
from fn._data import registry
from fn._data.dataset_ops import Dataset

pytestmark = pytest.mark.fn_only


def test_every_method_builder_is_registered():
    # Every name Dataset's methods look up is present once fn is imported.
    import inspect
    import re
    names = set(re.findall(r'registry\.lookup\("(\w+)"\)', inspect.getsource(inspect.getmodule(Dataset))))
    assert names and all(callable(registry.lookup(n)) for n in names)
    assert type(fn.data.Dataset.range(3).map(lambda x: x + 1)).__name__ == "MapDataset"


def test_unknown_name_is_a_clear_error():
    with pytest.raises(ImportError, match="NoSuchDataset is not registered"):
        registry.lookup("NoSuchDataset")


def test_two_builders_with_one_name_are_refused():
    class MapDataset:  # a different class under a registered name
        pass

    with pytest.raises(ValueError, match="two dataset builders named 'MapDataset'"):
        registry.register(MapDataset)
    assert registry.lookup("MapDataset") is not MapDataset
