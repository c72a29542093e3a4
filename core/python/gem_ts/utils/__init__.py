"""GEM's ``gem.utils`` helpers that user code imports: constants, answer parsing, episode printing."""

from . import constants, debug, parsing

__all__ = ["constants", "debug", "parsing"]
