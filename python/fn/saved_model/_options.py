"""``tf.saved_model.SaveOptions`` / ``LoadOptions``: accepted for TF compatibility."""

from __future__ import annotations

from typing import Any, Optional


class SaveOptions:
    """``tf.saved_model.SaveOptions``. fn's format keeps custom gradients whenever it can (a
    ``CustomGradient`` node's gradient is traced and saved with the function), so
    ``experimental_custom_gradients`` is recorded but changes nothing."""

    __slots__ = (
        "namespace_whitelist",
        "save_debug_info",
        "function_aliases",
        "experimental_io_device",
        "experimental_variable_policy",
        "experimental_custom_gradients",
        "experimental_image_format",
        "experimental_skip_saver",
        "experimental_sharding_callback",
        "extra_tags",
    )

    def __init__(
        self,
        namespace_whitelist: Any = None,
        save_debug_info: bool = False,
        function_aliases: Any = None,
        experimental_debug_stripper: bool = False,
        experimental_io_device: Optional[str] = None,
        experimental_variable_policy: Any = None,
        experimental_custom_gradients: bool = True,
        experimental_image_format: bool = False,
        experimental_skip_saver: bool = False,
        experimental_sharding_callback: Any = None,
        extra_tags: Any = None,
    ) -> None:
        self.namespace_whitelist = list(namespace_whitelist or [])
        self.save_debug_info = save_debug_info
        self.function_aliases = dict(function_aliases or {})
        self.experimental_io_device = experimental_io_device
        self.experimental_variable_policy = experimental_variable_policy
        self.experimental_custom_gradients = experimental_custom_gradients
        self.experimental_image_format = experimental_image_format
        self.experimental_skip_saver = experimental_skip_saver
        self.experimental_sharding_callback = experimental_sharding_callback
        self.extra_tags = extra_tags


class LoadOptions:
    """``tf.saved_model.LoadOptions``: accepted; fn loads on the host CPU."""

    def __init__(
        self,
        allow_partial_checkpoint: bool = False,
        experimental_io_device: Optional[str] = None,
        experimental_skip_checkpoint: bool = False,
        experimental_variable_policy: Any = None,
        experimental_load_function_aliases: bool = False,
    ) -> None:
        self.allow_partial_checkpoint = allow_partial_checkpoint
        self.experimental_io_device = experimental_io_device
        self.experimental_skip_checkpoint = experimental_skip_checkpoint
        self.experimental_variable_policy = experimental_variable_policy
        self.experimental_load_function_aliases = experimental_load_function_aliases
