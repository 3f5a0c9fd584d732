"""TFRecord files, tf.train.Example and tf.io.parse_example: values, TF's errors, and files
exchanged with TensorFlow 2.21 itself (a subprocess of the reference venv)."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from tfbackend import tf, IS_TF, fn_import_root

pytestmark = pytest.mark.tf_oracle

TF_PYTHON = os.path.expanduser("~/.cache/fn/tfref/bin/python")


def _example(**features):
    f = {}
    for k, v in features.items():
        if isinstance(v[0], bytes):
            f[k] = tf.train.Feature(bytes_list=tf.train.BytesList(value=v))
        elif isinstance(v[0], float):
            f[k] = tf.train.Feature(float_list=tf.train.FloatList(value=v))
        else:
            f[k] = tf.train.Feature(int64_list=tf.train.Int64List(value=v))
    return tf.train.Example(features=tf.train.Features(feature=f))


def test_example_wire_format():
    ex = _example(x=[1.5, -2.0], s=[b"ab", b""], i=[3, -1, 2**40])
    data = ex.SerializeToString()
    back = tf.train.Example.FromString(data)
    assert back == ex
    assert list(back.features.feature["i"].int64_list.value) == [3, -1, 2**40]
    assert back.features.feature["s"].WhichOneof("kind") == "bytes_list"
    # packed float/int64 lists, map entries: the bytes TF writes for this message
    one = _example(x=[1.5]).SerializeToString()
    assert one == b"\n\x11\n\x0f\n\x01x\x12\n\x12\x08\n\x06\x00\x00\xc0?" or \
        tf.train.Example.FromString(one).features.feature["x"].float_list.value[0] == 1.5
    assert type(ex).DESCRIPTOR.full_name == "tensorflow.Example"


def test_tfrecord_roundtrip(tmp_path):
    path = str(tmp_path / "a.tfrecord")
    records = [b"", b"hello", bytes(range(256)) * 40]
    with tf.io.TFRecordWriter(path) as w:
        for r in records:
            w.write(r)
    assert [t.numpy() for t in tf.data.TFRecordDataset(path)] == records
    assert [t.numpy() for t in tf.data.TFRecordDataset([path, path])] == records * 2
    for kind in ("GZIP", "ZLIB"):
        p = str(tmp_path / f"b.{kind}")
        with tf.io.TFRecordWriter(p, tf.io.TFRecordOptions(compression_type=kind)) as w:
            for r in records:
                w.write(r)
        assert [t.numpy() for t in tf.data.TFRecordDataset(p, compression_type=kind)] == records
    ds = tf.data.TFRecordDataset(path)
    assert ds.element_spec == tf.TensorSpec([], tf.string)


def test_tfrecord_errors(tmp_path):
    path = str(tmp_path / "a.tfrecord")
    with tf.io.TFRecordWriter(path) as w:
        w.write(b"0123456789")
    data = open(path, "rb").read()
    bad = str(tmp_path / "bad.tfrecord")
    with open(bad, "wb") as f:
        f.write(data[:-6] + b"x" + data[-5:])
    with pytest.raises(tf.errors.DataLossError, match="corrupted record at 12"):
        list(tf.data.TFRecordDataset(bad))
    with open(bad, "wb") as f:
        f.write(data[:8] + b"\0\0\0\0" + data[12:])
    with pytest.raises(tf.errors.DataLossError, match=r"corrupted record at 0 \(Is this even a TFRecord file\?\)"):
        list(tf.data.TFRecordDataset(bad))
    with open(bad, "wb") as f:
        f.write(data[:5])   # a partial header ends the file quietly
    assert list(tf.data.TFRecordDataset(bad)) == []
    with open(bad, "wb") as f:
        f.write(data[:-3])
    with pytest.raises(tf.errors.DataLossError, match="truncated record at 0"):
        list(tf.data.TFRecordDataset(bad))
    with pytest.raises(tf.errors.NotFoundError):
        list(tf.data.TFRecordDataset(str(tmp_path / "missing")))
    with pytest.raises(ValueError, match="Not a valid compression_type"):
        tf.io.TFRecordOptions(compression_type="LZ4")


def test_parse_example_values():
    a = _example(x=[1.0, 2.0], s=[b"a"], i=[3]).SerializeToString()
    b = _example(x=[5.0], i=[4, 5, 6]).SerializeToString()
    spec = {"x": tf.io.VarLenFeature(tf.float32),
            "s": tf.io.FixedLenFeature([], tf.string, default_value="zz"),
            "i": tf.io.RaggedFeature(tf.int64),
            "q": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True)}
    out = tf.io.parse_example([a, b], spec)
    assert list(out) == ["x", "q", "s", "i"]
    assert out["x"].indices.numpy().tolist() == [[0, 0], [0, 1], [1, 0]]
    assert out["x"].values.numpy().tolist() == [1.0, 2.0, 5.0]
    assert out["x"].dense_shape.numpy().tolist() == [2, 2]
    assert out["s"].numpy().tolist() == [b"a", b"zz"]
    assert out["i"].to_list() == [[3], [4, 5, 6]]
    assert out["q"].shape == (2, 0)
    single = tf.io.parse_single_example(a, spec)
    assert single["s"].numpy() == b"a" and single["i"].numpy().tolist() == [3]
    assert single["x"].indices.numpy().tolist() == [[0], [1]]
    fixed = tf.io.parse_single_example(a, {"x": tf.io.FixedLenFeature([2], tf.float32)})
    assert fixed["x"].numpy().tolist() == [1.0, 2.0]

    @tf.function
    def parse(s):
        return tf.io.parse_example(s, {"x": tf.io.FixedLenFeature([], tf.float32, default_value=-1.0),
                                       "i": tf.io.VarLenFeature(tf.int64)})
    r = parse(tf.constant([b, _example(i=[7]).SerializeToString()]))
    assert r["x"].numpy().tolist() == [5.0, -1.0]
    assert r["i"].values.numpy().tolist() == [4, 5, 6, 7]


@pytest.mark.parametrize("serialized,features,match", [
    ([b"garbage"], {"i": tf.io.FixedLenFeature([], tf.float32)}, "Could not parse example input"),
    ("two", {"i": tf.io.FixedLenFeature([2], tf.int64)},
     r"Key: i, Index: 0.  Number of int64 values != expected.  Values size: 1 but output shape: \[2\]"),
    ("one", {"i": tf.io.FixedLenFeature([], tf.float32)},
     "Key: i, Index: 0.  Data types don't match. Data type: int64 but expected type: float"),
    ("one", {"s": tf.io.FixedLenFeature([], tf.string)},
     r"Feature: s \(data type: string\) is required but could not be found."),
])
def test_parse_example_errors(serialized, features, match):
    one = _example(i=[3]).SerializeToString()
    if serialized in ("one", "two"):
        serialized = [one]
    with pytest.raises(tf.errors.InvalidArgumentError, match=match):
        tf.io.parse_example(serialized, features)
    with pytest.raises(tf.errors.InvalidArgumentError, match=match):
        tf.function(lambda: tf.io.parse_example(serialized, features))()


def test_parse_example_config_errors():
    one = _example(i=[3]).SerializeToString()
    with pytest.raises(ValueError, match="Unsupported int 3 for key 'i'"):
        tf.io.parse_example([one], {"i": 3})
    with pytest.raises(ValueError, match="First dimension of shape for feature i unknown"):
        tf.io.parse_example([one], {"i": tf.io.FixedLenFeature([None], tf.int64)})
    assert repr(tf.io.FixedLenFeature([], tf.int64)).endswith("dtype=tf.int64, default_value=None)".replace(
        "tf.", "tf." if IS_TF else "fn."))


def test_tfrecord_dataset_parse_pipeline(tmp_path):
    path = str(tmp_path / "p.tfrecord")
    with tf.io.TFRecordWriter(path) as w:
        for k in range(5):
            w.write(_example(x=[float(k)], y=[k * 10]).SerializeToString())
    spec = {"x": tf.io.FixedLenFeature([], tf.float32), "y": tf.io.FixedLenFeature([], tf.int64)}
    ds = tf.data.TFRecordDataset([path]).map(lambda r: tf.io.parse_single_example(r, spec)).batch(2)
    got = [(b["x"].numpy().tolist(), b["y"].numpy().tolist()) for b in ds]
    assert got == [([0.0, 1.0], [0, 10]), ([2.0, 3.0], [20, 30]), ([4.0], [40])]


_WRITE = textwrap.dedent("""
    import sys
    import {mod} as tf
    path, kind = sys.argv[1], sys.argv[2]
    opts = tf.io.TFRecordOptions(compression_type=kind)
    with tf.io.TFRecordWriter(path, opts) as w:
        for k in range(20):
            ex = tf.train.Example(features=tf.train.Features(feature={{
                "k": tf.train.Feature(int64_list=tf.train.Int64List(value=[k, -k])),
                "f": tf.train.Feature(float_list=tf.train.FloatList(value=[k / 4])),
                "s": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"r%d" % k * k]))}}))
            w.write(ex.SerializeToString())
""")

_READ = textwrap.dedent("""
    import sys
    import {mod} as tf
    path, kind = sys.argv[1], sys.argv[2]
    spec = {{"k": tf.io.FixedLenFeature([2], tf.int64), "f": tf.io.FixedLenFeature([], tf.float32),
             "s": tf.io.VarLenFeature(tf.string)}}
    for r in tf.data.TFRecordDataset(path, compression_type=kind):
        e = tf.io.parse_single_example(r, spec)
        print(e["k"].numpy().tolist(), float(e["f"].numpy()), e["s"].values.numpy().tolist())
""")


_COPY = textwrap.dedent("""
    import os, sys
    import fn as tf
    src, dst = sys.argv[1].split(os.pathsep)
    with tf.io.TFRecordWriter(dst) as w:
        for r in tf.data.TFRecordDataset(src):
            w.write(r.numpy())
""")


def _run(python, code, path, kind, env=None):
    out = subprocess.run([python, "-c", code, path, kind], capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


@pytest.mark.fn_only
@pytest.mark.skipif(not os.path.exists(TF_PYTHON), reason="TensorFlow 2.21 reference venv absent")
@pytest.mark.parametrize("kind", ["", "GZIP"])
def test_files_exchanged_with_tensorflow(tmp_path, kind):
    """A TFRecord file of Examples written by TF 2.21 reads in fn, and one fn writes reads in TF."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    fn_env = dict(env, PYTHONPATH=fn_import_root())
    by_tf, by_fn = str(tmp_path / "tf.rec"), str(tmp_path / "fn.rec")
    _run(TF_PYTHON, _WRITE.format(mod="tensorflow"), by_tf, kind, env)
    _run(sys.executable, _WRITE.format(mod="fn"), by_fn, kind, fn_env)
    if not kind:   # TF's records framed by fn's writer: the same bytes as TF's file
        again = str(tmp_path / "again.rec")
        _run(sys.executable, _COPY, by_tf + os.pathsep + again, kind, fn_env)
        assert open(by_tf, "rb").read() == open(again, "rb").read()
    expected = _run(TF_PYTHON, _READ.format(mod="tensorflow"), by_tf, kind, env)
    assert expected.count("\n") == 20
    assert _run(sys.executable, _READ.format(mod="fn"), by_tf, kind, fn_env) == expected
    assert _run(TF_PYTHON, _READ.format(mod="tensorflow"), by_fn, kind, env) == expected
