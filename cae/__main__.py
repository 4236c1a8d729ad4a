"""``python -m cae``: the command line (:mod:`cae.cli`): ``learn``, ``label`` and ``info``."""

from .cli import entry

entry()
