"""The algorithms the paper compares CAE with: SOINN+, ASOINN, TCA and AutoCloud.

Each shares CAE's estimator shell (:class:`cae._base.StreamingClusterer`),
state storage and model file, and is written from its authors' reference
code (cited in each module, with every difference listed).
"""
