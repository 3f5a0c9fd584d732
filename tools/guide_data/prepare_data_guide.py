#!/usr/bin/env python3
"""Local stand-ins for the downloads of tensorflow/docs ``site/en/guide/data.ipynb``, and a copy
of the notebook whose ``get_file``/``load_data`` calls point at them (for ``tools/nb_diff.py``).

    python tools/guide_data/prepare_data_guide.py data.ipynb OUTDIR   # run with TF's python

Files of the same formats as the originals, with synthetic content: the FSNS TFRecord of
``tf.train.Example`` (PNG image + text, written by TensorFlow), the three Iliad text files, the
Titanic CSV (same columns), the credit-card CSV (30 float columns + ``Class``) and a small
Fashion-MNIST-shaped ``.npz`` and a ``flower_photos`` folder (five class folders of small JPEG files, and LICENSE.txt).
"""
import json
import os
import re
import sys

import numpy as np


def make_files(out: str) -> dict:
    import tensorflow as tf
    rng = np.random.default_rng(0)
    os.makedirs(out, exist_ok=True)
    paths = {}
    fsns = os.path.join(out, "fsns.tfrec")
    with tf.io.TFRecordWriter(fsns) as w:
        for k in range(8):
            img = tf.io.encode_png(tf.constant(rng.integers(0, 255, (150, 600, 3)), tf.uint8)).numpy()
            ex = tf.train.Example(features=tf.train.Features(feature={
                "image/encoded": tf.train.Feature(bytes_list=tf.train.BytesList(value=[img])),
                "image/format": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"PNG"])),
                "image/text": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"Rue %d" % k])),
                "image/width": tf.train.Feature(int64_list=tf.train.Int64List(value=[600]))}))
            w.write(ex.SerializeToString())
    paths["fsns"] = fsns
    words = "sing goddess the anger of achilles son of peleus that brought countless ills upon the achaeans".split()
    for name in ("cowper.txt", "derby.txt", "butler.txt"):
        with open(os.path.join(out, name), "w") as f:
            for i in range(300):
                f.write(" ".join(rng.choice(words, rng.integers(3, 10))) + f" {name[:3]}{i}\n")
    titanic = os.path.join(out, "train.csv")
    with open(titanic, "w") as f:
        f.write("survived,sex,age,n_siblings_spouses,parch,fare,class,deck,embark_town,alone\n")
        for i in range(627):
            f.write(f"{rng.integers(0, 2)},{rng.choice(['male', 'female'])},{rng.integers(1, 80)}.0,"
                    f"{rng.integers(0, 4)},{rng.integers(0, 3)},{rng.uniform(5, 100):.4f},"
                    f"{rng.choice(['First', 'Second', 'Third'])},{rng.choice(['unknown', 'C', 'B'])},"
                    f"{rng.choice(['Southampton', 'Cherbourg'])},{rng.choice(['y', 'n'])}\n")
    paths["titanic"] = titanic
    card = os.path.join(out, "creditcard.csv")
    with open(card, "w") as f:
        f.write(",".join(['"Time"'] + [f'"V{i}"' for i in range(1, 29)] + ['"Amount"', '"Class"']) + "\n")
        for i in range(12000):
            cls = int(rng.random() < 0.02)
            vals = rng.normal(size=30)
            f.write(",".join(f"{v:.6f}" for v in vals) + f',"{cls}"\n')
    paths["creditcard"] = os.path.join(out, "creditcard.zip")
    mnist = os.path.join(out, "fashion_mnist.npz")
    np.savez(mnist, x_train=rng.integers(0, 255, (6000, 28, 28), dtype=np.uint8),
             y_train=rng.integers(0, 10, 6000, dtype=np.uint8),
             x_test=rng.integers(0, 255, (1000, 28, 28), dtype=np.uint8),
             y_test=rng.integers(0, 10, 1000, dtype=np.uint8))
    paths["mnist"] = mnist
    flowers = os.path.join(out, "flower_photos")
    os.makedirs(flowers, exist_ok=True)
    with open(os.path.join(flowers, "LICENSE.txt"), "w") as f:
        f.write("All images in this archive are synthetic stand-ins.\n")
    for cls in ("daisy", "dandelion", "roses", "sunflowers", "tulips"):
        os.makedirs(os.path.join(flowers, cls), exist_ok=True)
        for k in range(2):
            img = tf.constant(rng.integers(0, 255, (48, 64, 3)), tf.uint8)
            with open(os.path.join(flowers, cls, f"{k}{cls[:3]}{rng.integers(10**6)}.jpg"), "wb") as f:
                f.write(tf.io.encode_jpeg(img).numpy())
    paths["flowers"] = flowers
    paths["dir"] = out
    return paths


def rewrite(nb_path: str, out_nb: str, paths: dict) -> None:
    with open(nb_path) as f:
        nb = json.load(f)
    mnist = ("(lambda d: ((d['x_train'], d['y_train']), (d['x_test'], d['y_test'])))"
             f"(np.load({paths['mnist']!r}))")
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        src = "".join(cell["source"])
        src = src.replace("tf.keras.datasets.fashion_mnist.load_data()", mnist)
        src = re.sub(r"tf\.keras\.utils\.get_file\(\s*'flower_photos',[^)]*\)", repr(paths["flowers"]), src)
        src = re.sub(r'tf\.keras\.utils\.get_file\(\s*"fsns\.tfrec"[^)]*\)', repr(paths["fsns"]), src)
        src = re.sub(r'tf\.keras\.utils\.get_file\(\s*"train\.csv"[^)]*\)', repr(paths["titanic"]), src)
        src = re.sub(r"tf\.keras\.utils\.get_file\(file_name, directory_url \+ file_name\)",
                     f"os.path.join({paths['dir']!r}, file_name)", src)
        src = re.sub(r"tf\.keras\.utils\.get_file\(\s*origin='[^']*creditcard\.zip',[^)]*\)",
                     repr(paths["creditcard"]), src, flags=re.S)
        src = src.replace("%%writefile missing.csv\n", f"open('missing.csv', 'w').write('''") \
            if src.startswith("%%writefile missing.csv") else src
        if src.startswith("open('missing.csv'"):
            src += "\n''');"
        cell["source"] = src
    with open(out_nb, "w") as f:
        json.dump(nb, f)


if __name__ == "__main__":
    nb_in, out_dir = sys.argv[1], sys.argv[2]
    rewrite(nb_in, os.path.join(out_dir, "data_local.ipynb"), make_files(out_dir))
