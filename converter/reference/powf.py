"""C ``powf`` for the references, whatever numpy's ``power`` makes of the exponent's shape or numpy's version.

numpy 2 computes an exponent of 0.5 that broadcasts from one element (a scalar, or shape (1,), (1, 1), ...) as a
square root, and ``powf`` differs from a square root at two inputs: powf(-inf, 0.5) is +inf where sqrt gives NaN,
and powf(-0, 0.5) is +0 where sqrt gives -0 (C99 F.9.4.4; onnxruntime's Pow, std::pow, gives the same). numpy
1.26 computes powf for the same call, and a per-channel power on a one-channel tensor (or on a channel slice)
would take the shortcut where a wider one does not. The reference's value must depend on none of these.
"""

from __future__ import annotations

import numpy as np


def powf(base: np.ndarray, exponent, out: np.ndarray | None = None) -> np.ndarray:
    """``base ** exponent`` element by element with C powf's special values at an exponent of 0.5. ``out`` may be
    ``base`` itself (in place)."""
    half = np.asarray(exponent) == 0.5
    fix = fixed = None
    if half.any():
        fix = half & ((base == 0) | np.isneginf(base))  # (read before ``out`` overwrites ``base``)
        if fix.any():
            fixed = np.abs(np.broadcast_to(base, fix.shape)[fix])  # powf(-inf, 0.5) = +inf, powf(+-0, 0.5) = +0
    result = np.power(base, exponent, out=out)
    if fixed is not None:
        result[fix] = fixed
    return result
