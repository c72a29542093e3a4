"""GEM's wrappers, by name (``gem_ts.wrappers.get_wrapper_fns``); they run on the server."""

from .wrapper_factory import TOKENIZER_REQUIRED, WRAPPER_FACTORY, WRAPPER_NAMES, WrapperFn, get_wrapper_fns, resolve_wrappers

__all__ = ["TOKENIZER_REQUIRED", "WRAPPER_FACTORY", "WRAPPER_NAMES", "WrapperFn", "get_wrapper_fns", "resolve_wrappers"]
