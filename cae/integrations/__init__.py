"""Adapters to other libraries' APIs; each is an optional extra.

:mod:`cae.integrations.river`
    every registered algorithm as a River clusterer (``pip install "cae-explorer[river]"``).
"""
