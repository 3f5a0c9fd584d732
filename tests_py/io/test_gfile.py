"""tf.io.gfile on local files: reading, writing, listing, removing, and TF's errors."""
import os

import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

gfile = tf.io.gfile


def test_files_and_directories(tmp_path):
    d = str(tmp_path)
    with gfile.GFile(os.path.join(d, "a.txt"), "w") as f:
        f.write("hi\nthere\n")
    with gfile.GFile(os.path.join(d, "a.txt")) as f:
        assert list(f) == ["hi\n", "there\n"] and f.size() == 9
    with gfile.GFile(os.path.join(d, "a.txt"), "rb") as f:
        assert f.read(2) == b"hi" and f.tell() == 2
    gfile.makedirs(os.path.join(d, "s", "t", "u"))
    gfile.mkdir(os.path.join(d, "s"))                       # an existing directory is fine
    assert sorted(gfile.listdir(d)) == ["a.txt", "s"]
    assert gfile.isdir(os.path.join(d, "s")) and not gfile.isdir(os.path.join(d, "a.txt"))
    assert sorted(gfile.glob(os.path.join(d, "*"))) == [os.path.join(d, "a.txt"), os.path.join(d, "s")]
    assert [w[0] for w in gfile.walk(d)][:2] == [d, os.path.join(d, "s")]
    st = gfile.stat(os.path.join(d, "a.txt"))
    assert (st.length, st.is_directory) == (9, False)
    gfile.copy(os.path.join(d, "a.txt"), os.path.join(d, "b.txt"))
    gfile.rename(os.path.join(d, "b.txt"), os.path.join(d, "c.txt"))
    assert gfile.exists(os.path.join(d, "c.txt")) and not gfile.exists(os.path.join(d, "b.txt"))
    gfile.remove(os.path.join(d, "c.txt"))
    gfile.rmtree(os.path.join(d, "s"))
    assert sorted(gfile.listdir(d)) == ["a.txt"]
    assert gfile.join("a", "b") == os.path.join("a", "b")


def test_errors(tmp_path):
    missing = os.path.join(str(tmp_path), "nope")
    for f, args, message in [(gfile.remove, (missing,), "No such file or directory"),
                             (gfile.rmtree, (missing,), "not found"),
                             (gfile.listdir, (missing,), "Could not find directory"),
                             (gfile.stat, (missing,), "No such file or directory"),
                             (lambda p: gfile.GFile(p).read(), (missing,), "No such file or directory")]:
        with pytest.raises(tf.errors.NotFoundError, match=message):
            f(*args)
    a = os.path.join(str(tmp_path), "a")
    with gfile.GFile(a, "w") as f:
        f.write("x")
    with pytest.raises(tf.errors.AlreadyExistsError, match="file already exists"):
        gfile.copy(a, a)
    with pytest.raises(tf.errors.AlreadyExistsError, match="file already exists"):
        gfile.rename(a, a)
