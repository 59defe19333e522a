"""portkern's storage dtypes and their NumPy counterparts.

NumPy is imported here, lazily, and only by the host-array helpers: the rest
of the package runs without it. NumPy has no bfloat16, so bf16 travels as
its bits in uint16 arrays, or as float32 converted here (round to nearest
even, NaN kept a NaN: the same rule as pk_f32_to_bf16).
"""
from ._errors import Error
from . import _structs as S

_ALIASES = {
    "f32": "f32", "float32": "f32", "float": "f32",
    "f16": "f16", "float16": "f16", "half": "f16",
    "bf16": "bf16", "bfloat16": "bf16",
    "i32": "i32", "int32": "i32",
}


def numpy():
    try:
        import numpy as np
    except ImportError as e:  # pragma: no cover - depends on the machine
        raise Error("NumPy is needed for host arrays (pip install numpy)") from e
    return np


def name(dtype):
    """'f32', 'f16', 'bf16' or 'i32' from any spelling (also a NumPy dtype)."""
    key = dtype if isinstance(dtype, str) else getattr(dtype, "name", None) or str(dtype)
    try:
        return _ALIASES[key.lower()]
    except (KeyError, AttributeError):
        raise Error(f"dtype {dtype!r} is not one of portkern's f32, f16, bf16, i32") from None


def enum(dtype):
    return S.DTYPES[name(dtype)][0]


def itemsize(dtype):
    return S.DTYPES[name(dtype)][1]


def storage_numpy_dtype(dtype):
    """The NumPy dtype that holds the stored bits of `dtype`."""
    np = numpy()
    return {"f32": np.float32, "f16": np.float16, "bf16": np.uint16, "i32": np.int32}[name(dtype)]


def default_for(array):
    """The portkern dtype a NumPy array maps to without being told."""
    np = numpy()
    if array.dtype == np.float32:
        return "f32"
    if array.dtype == np.float16:
        return "f16"
    if array.dtype == np.int32:
        return "i32"
    raise Error(f"a {array.dtype} array has no portkern dtype: pass dtype='f32', 'f16', 'bf16' "
                f"or 'i32' to convert it (uint16 with dtype='bf16' is taken as bf16 bits)")


def f32_to_bf16_bits(a):
    np = numpy()
    u = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    # round to nearest even on the 16 bits dropped
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(np.asarray(a, dtype=np.float32))
    if nan.any():
        # keep the sign and payload's top bits, force a quiet NaN: rounding
        # could carry a NaN into infinity
        rounded[nan] = ((u[nan] >> 16) | 0x0040).astype(np.uint16)
    return rounded


def bf16_bits_to_f32(bits):
    np = numpy()
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def to_storage(array, dtype):
    """A C-contiguous NumPy array holding `array`'s values in `dtype`'s bits."""
    np = numpy()
    dt = name(dtype)
    a = np.asarray(array)
    if dt == "bf16":
        if a.dtype == np.uint16:
            return np.ascontiguousarray(a)
        return f32_to_bf16_bits(a)
    return np.ascontiguousarray(a, dtype=storage_numpy_dtype(dt))


def from_storage(bits, dtype, raw=False):
    """Values of stored bits: bf16 as float32 unless raw (then uint16 bits)."""
    if name(dtype) == "bf16" and not raw:
        return bf16_bits_to_f32(bits)
    return bits
