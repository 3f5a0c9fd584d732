"""TensorFlow's tutorial "Custom training with tf.distribute.Strategy", on fn and MPI.

    mpirun --allow-run-as-root -np 2 python examples/distributed_custom_training.py
    python examples/distributed_custom_training.py          # one worker, same code

The tutorial's program with two changes: the strategy is ``MultiWorkerMirroredStrategy`` (one
replica per MPI process; rank 0 is the chief) and the data are synthetic Fashion-MNIST-shaped
images (the machine has no network). Checkpoints follow TF's multi-worker tutorial: every worker
saves, the chief to the real directory, the others to a temporary one they delete.
"""
import os
import shutil
import tempfile

import numpy as np

import fn as tf

EPOCHS = 2
BATCH_SIZE_PER_REPLICA = 32
BUFFER_SIZE = 512

strategy = tf.distribute.MultiWorkerMirroredStrategy()
resolver = strategy.cluster_resolver
task_type, task_id = resolver.task_type, resolver.task_id
print(f"Number of devices: {strategy.num_replicas_in_sync} (this is {task_type}:{task_id})")
GLOBAL_BATCH_SIZE = BATCH_SIZE_PER_REPLICA * strategy.num_replicas_in_sync

# Fashion-MNIST-shaped data: 28x28x1 images in [0, 1], labels 0..9 that depend on the images.
rng = np.random.RandomState(0)
train_images = rng.rand(1024, 28, 28, 1).astype(np.float32)
train_labels = (train_images.reshape(1024, -1)[:, :10].argmax(axis=1)).astype(np.int64)
test_images = rng.rand(256, 28, 28, 1).astype(np.float32)
test_labels = (test_images.reshape(256, -1)[:, :10].argmax(axis=1)).astype(np.int64)

train_dataset = tf.data.Dataset.from_tensor_slices((train_images, train_labels)).shuffle(
    BUFFER_SIZE, seed=1).batch(GLOBAL_BATCH_SIZE, drop_remainder=True)
test_dataset = tf.data.Dataset.from_tensor_slices((test_images, test_labels)).batch(GLOBAL_BATCH_SIZE)
train_dist_dataset = strategy.experimental_distribute_dataset(train_dataset)
test_dist_dataset = strategy.experimental_distribute_dataset(test_dataset)


def create_model():
    return tf.keras.Sequential([
        tf.keras.layers.Conv2D(16, 3, activation="relu"),
        tf.keras.layers.MaxPooling2D(),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(64, activation="relu"),
        tf.keras.layers.Dense(10),
    ])


with strategy.scope():
    loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")

    def compute_loss(labels, predictions):
        per_example_loss = loss_object(labels, predictions)
        return tf.nn.compute_average_loss(per_example_loss)

    test_loss = tf.keras.metrics.Mean(name="test_loss")
    train_accuracy = tf.keras.metrics.SparseCategoricalAccuracy(name="train_accuracy")
    test_accuracy = tf.keras.metrics.SparseCategoricalAccuracy(name="test_accuracy")
    model = create_model()
    model.build((None, 28, 28, 1))
    optimizer = tf.keras.optimizers.Adam(learning_rate=1e-3)
    checkpoint = tf.train.Checkpoint(optimizer=optimizer, model=model)


def train_step(inputs):
    images, labels = inputs
    with tf.GradientTape() as tape:
        predictions = model(images, training=True)
        loss = compute_loss(labels, predictions)
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))   # sums across replicas
    train_accuracy.update_state(labels, predictions)
    return loss


def test_step(inputs):
    images, labels = inputs
    predictions = model(images, training=False)
    test_loss.update_state(loss_object(labels, predictions))
    test_accuracy.update_state(labels, predictions)


@tf.function
def distributed_train_step(dataset_inputs):
    per_replica_losses = strategy.run(train_step, args=(dataset_inputs,))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica_losses, axis=None)


@tf.function
def distributed_test_step(dataset_inputs):
    return strategy.run(test_step, args=(dataset_inputs,))


def is_chief():
    return task_type is None or task_type == "chief" or (task_type == "worker" and task_id == 0)


def write_filepath(filepath):
    """The multi-worker tutorial's rule: the chief writes `filepath`, the others a temp dir."""
    dirpath, base = os.path.dirname(filepath), os.path.basename(filepath)
    if not is_chief():
        dirpath = os.path.join(tempfile.gettempdir(), f"workertemp_{task_id}")
    os.makedirs(dirpath, exist_ok=True)
    return os.path.join(dirpath, base)


checkpoint_dir = os.environ.get("CKPT_DIR", os.path.join(tempfile.gettempdir(), "fn_dist_ckpt"))
for epoch in range(EPOCHS):
    total_loss, num_batches = 0.0, 0
    for x in train_dist_dataset:
        total_loss += float(distributed_train_step(x))
        num_batches += 1
    train_loss = total_loss / num_batches
    for x in test_dist_dataset:
        distributed_test_step(x)
    # Metrics created in the scope are synchronised on read (as TF): every worker prints the global values.
    print(f"[{task_type}:{task_id}] Epoch {epoch + 1}, Loss: {train_loss:.4f}, "
          f"Accuracy: {train_accuracy.result().numpy() * 100:.2f}, "
          f"Test Loss: {test_loss.result().numpy():.4f}, Test Accuracy: {test_accuracy.result().numpy() * 100:.2f}")
    test_loss.reset_state()
    train_accuracy.reset_state()
    test_accuracy.reset_state()
    path = checkpoint.save(write_filepath(os.path.join(checkpoint_dir, "ckpt")))
    if not is_chief():
        shutil.rmtree(os.path.dirname(path), ignore_errors=True)

# Every worker restores the chief's checkpoint (after a collective: the chief has written it).
strategy.reduce(tf.distribute.ReduceOp.SUM, strategy.run(lambda: tf.constant(1.0)), axis=None)
checkpoint.restore(tf.train.latest_checkpoint(checkpoint_dir))
print(f"[{task_type}:{task_id}] restored {tf.train.latest_checkpoint(checkpoint_dir)}")
