"""The algorithms the paper compares CAE with: SOINN+, ASOINN, TCA and AutoCloud.

Each shares CAE's estimator shell (:class:`cae._base.StreamingClusterer`),
state storage and model file, and is written from its authors' reference
code (cited in each module, with every difference listed). Importing this
package registers them for :func:`cae.load_model`.
"""

from .asoinn import ASOINN
from .autocloud import AutoCloud
from .soinn_plus import SOINNPlus
from .tca import TCA

__all__ = ["SOINNPlus", "ASOINN", "TCA", "AutoCloud"]
