"""What the static check asks the machine it runs on: whether a named locale is installed (issue 25, class 4).

onnxruntime's StringNormalizer builds ``std::locale(name)`` when it changes case, or compares stopwords without
case (microsoft/onnxruntime onnxruntime/core/providers/cpu/text/string_normalizer.cc, ``Locale::Locale``; the
session fails to load with "Failed to construct locale with name: ..."). Its default name is "en_US.UTF-8" on
Linux and macOS, "en-US" on Windows. On Linux (glibc: onnxruntime's manylinux wheels), libstdc++ builds a named
locale with ``__newlocale(1 << LC_ALL, name, 0)`` and throws when that returns NULL
(gcc libstdc++-v3/config/locale/gnu/c_locale.cc, ``locale::facet::_S_create_c_locale``); "C" and "POSIX" are the
classic locale, never looked up. This module makes the same call, through ctypes, in this process: it reads the
same locale files (LOCPATH, /usr/lib/locale) with the same environment (for "" too), changes no global state,
and frees what it gets. Elsewhere (macOS, Windows, musl) it does not guess: ``installed`` answers None.

Answers are cached per process and name.
"""

from __future__ import annotations

import ctypes
import locale
import os
import sys
from functools import lru_cache

# onnxruntime's default locale (string_normalizer.cc, default_locale)
ONNXRUNTIME_DEFAULT_LOCALE = "en-US" if sys.platform == "win32" else "en_US.UTF-8"
CLASSIC = ("C", "POSIX")  # std::locale's classic locale: never looked up


def glibc() -> bool:
    """Whether this process runs on glibc (where libstdc++'s std::locale is newlocale)."""
    try:
        return bool(os.confstr("CS_GNU_LIBC_VERSION"))
    except (AttributeError, ValueError, OSError):
        return False


@lru_cache(maxsize=64)
def installed(name: str) -> bool | None:
    """Whether ``std::locale(name)`` succeeds in onnxruntime on this machine; None where that is not probed here."""
    name = name.split("\0", 1)[0]  # the name reaches std::locale as a C string
    if name in CLASSIC:
        return True
    if not glibc():
        return None
    try:
        libc = ctypes.CDLL(None)
        newlocale, freelocale = libc.newlocale, libc.freelocale
    except (OSError, AttributeError):
        return None
    newlocale.restype, newlocale.argtypes = ctypes.c_void_p, [ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p]
    freelocale.restype, freelocale.argtypes = None, [ctypes.c_void_p]
    handle = newlocale(1 << locale.LC_ALL, name.encode("utf-8", "surrogateescape"), None)
    if not handle:
        return False
    freelocale(handle)
    return True
