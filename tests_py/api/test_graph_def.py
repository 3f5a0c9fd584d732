"""``as_graph_def()`` prints as TensorFlow's text protobuf."""
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

EXPECTED = '''node {
  name: "x"
  op: "Placeholder"
  attr {
    key: "shape"
    value {
      shape {
        dim {
          size: -1
        }
        dim {
          size: 2
        }
      }
    }
  }
  attr {
    key: "dtype"
    value {
      type: DT_FLOAT
    }
  }
  attr {
    key: "_user_specified_name"
    value {
      s: "x"
    }
  }
}
node {
  name: "y"
  op: "Placeholder"
  attr {
    key: "shape"
    value {
      shape {
      }
    }
  }
  attr {
    key: "dtype"
    value {
      type: DT_FLOAT
    }
  }
  attr {
    key: "_user_specified_name"
    value {
      s: "y"
    }
  }
}
node {
  name: "add"
  op: "AddV2"
  input: "x"
  input: "y"
  attr {
    key: "T"
    value {
      type: DT_FLOAT
    }
  }
}
node {
  name: "Identity"
  op: "Identity"
  input: "add"
  attr {
    key: "T"
    value {
      type: DT_FLOAT
    }
  }
}
versions {
  producer: %d
}
'''


def test_graph_def_text():
    @tf.function
    def f(x, y):
        return x + y
    g = f.get_concrete_function(tf.TensorSpec([None, 2]), tf.TensorSpec([])).graph
    assert str(g.as_graph_def()) == EXPECTED % tf.version.GRAPH_DEF_VERSION


def test_const_values():
    @tf.function
    def f():
        return tf.constant([1.0, 2.0]), tf.constant(3), tf.constant([b"a", b"b"]), tf.constant(True)
    text = str(f.get_concrete_function().graph.as_graph_def())
    assert 'tensor_content: "\\000\\000\\200?\\000\\000\\000@"' in text
    assert "int_val: 3" in text and 'string_val: "a"' in text and "bool_val: true" in text
    assert "dtype: DT_STRING" in text and "tensor_shape {\n          dim {\n            size: 2" in text
    nodes = f.get_concrete_function().graph.as_graph_def().node
    assert [n.op for n in nodes].count("Const") == 4
