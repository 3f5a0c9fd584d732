"""``tf.image``: dtype conversion, flips and rotations, colour, contrast/brightness, crops,
padding, standardization and resizing."""

from __future__ import annotations

from fn._ops.image_ops import (
    ResizeMethod,
    adjust_brightness,
    adjust_contrast,
    central_crop,
    convert_image_dtype,
    crop_to_bounding_box,
    flip_left_right,
    flip_up_down,
    grayscale_to_rgb,
    pad_to_bounding_box,
    per_image_standardization,
    resize,
    rgb_to_grayscale,
    rot90,
)
from fn._io.jpeg import decode_jpeg
from fn._io.png import decode_png, encode_png

from fn._public import export as _export

_export(globals())
