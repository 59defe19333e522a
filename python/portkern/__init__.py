"""portkern: Python bindings (ctypes) of the portkern C library.

    import numpy as np, portkern
    with portkern.open("ref") as ctx:
        a = ctx.tensor(np.random.rand(64, 32).astype(np.float32))
        b = ctx.tensor(np.random.rand(32, 16).astype(np.float32))
        d = ctx.gemm(a, b, act="relu")
        print(d.numpy())

The library is found through $PORTKERN_LIBRARY (a path to libportkern.so),
else the system's library search; it is loaded at the first call, so this
import always works. Every failure raises portkern.Error.
"""
from ._errors import Error
from ._lib import ENV_LIBRARY, library_path
from ._context import Context, DeviceInfo, devices, open, unavailable
from ._event import Event
from ._graph import Graph
from ._tensor import Tensor

__version__ = "0.1.0"

DTYPES = ("f32", "f16", "bf16")
BACKENDS = ("auto", "ref", "opencl", "cuda", "hip")
ACTIVATIONS = ("none", "relu", "gelu", "gelu_tanh", "silu")


def version():
    """The loaded library's version string (pk_version_string)."""
    from ._lib import lib
    return lib().pk_version_string().decode()


def open_on_queue(backend, index=0, queue=None):
    """Context.open_on_queue: a context on the caller's native queue."""
    return Context.open_on_queue(backend, index, queue)


def from_dlpack(ctx, obj):
    """ctx.from_dlpack(obj): a zero-copy tensor over a producer's memory."""
    return ctx.from_dlpack(obj)


__all__ = [
    "Error", "Context", "DeviceInfo", "Event", "Graph", "Tensor", "devices", "unavailable", "open",
    "open_on_queue", "from_dlpack", "version", "library_path", "ENV_LIBRARY", "DTYPES",
    "BACKENDS", "ACTIVATIONS", "__version__",
]
