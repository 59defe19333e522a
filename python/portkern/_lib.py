"""Finding libportkern, declaring its functions, turning statuses into errors.

The library is loaded at the first call that needs it, not at import, so
that `import portkern` works on a machine without it (docs, packaging,
tests that skip) and the failure names the fix.
"""
import ctypes
import ctypes.util
import os
import sys
import threading
from ctypes import POINTER, c_char_p, c_float, c_int, c_size_t, c_uint16, c_void_p

from ._errors import Error
from . import _structs as S

ENV_LIBRARY = "PORTKERN_LIBRARY"

_st = c_int            # pk_status
_ptr = c_void_p        # opaque handles: pk_context *, pk_buffer *, pk_event *, pk_graph *
_T = POINTER(S.TensorDesc)
# uintptr_t: size_t has its width on every platform portkern builds for
_uintptr = c_size_t

# name: (restype, argtypes)
_PROTOTYPES = {
    "pk_version": (c_int, []),
    "pk_version_string": (c_char_p, []),
    "pk_status_string": (c_char_p, [c_int]),
    "pk_last_error": (c_char_p, [_ptr]),
    "pk_backend_name": (c_char_p, [c_int]),
    "pk_backend_from_name": (_st, [c_char_p, POINTER(c_int)]),
    "pk_device_count": (_st, [c_int, POINTER(c_int)]),
    "pk_device_info_get": (_st, [c_int, c_int, POINTER(S.DeviceInfo)]),
    "pk_backend_unavailable_reason": (c_char_p, [c_int]),
    "pk_open": (_st, [c_int, c_int, POINTER(_ptr)]),
    "pk_close": (_st, [_ptr]),
    "pk_context_info": (_st, [_ptr, POINTER(S.DeviceInfo)]),
    "pk_finish": (_st, [_ptr]),
    "pk_alloc": (_st, [_ptr, c_size_t, POINTER(_ptr)]),
    "pk_free": (_st, [_ptr]),
    "pk_buffer_size": (c_size_t, [_ptr]),
    "pk_buffer_context": (_ptr, [_ptr]),
    "pk_upload": (_st, [_ptr, c_size_t, c_void_p, c_size_t]),
    "pk_download": (_st, [_ptr, c_size_t, c_void_p, c_size_t]),
    "pk_copy": (_st, [_ptr, c_size_t, _ptr, c_size_t, c_size_t]),
    "pk_fill": (_st, [_ptr, c_size_t, c_size_t, c_void_p, c_size_t]),
    "pk_open_on_queue": (_st, [c_int, c_int, c_void_p, POINTER(_ptr)]),
    "pk_context_queue": (_st, [_ptr, POINTER(c_void_p)]),
    "pk_buffer_wrap": (_st, [_ptr, _uintptr, c_size_t, POINTER(_ptr)]),
    "pk_buffer_handle": (_st, [_ptr, POINTER(_uintptr)]),
    "pk_buffer_is_wrapped": (c_int, [_ptr]),
    "pk_event_record": (_st, [_ptr, POINTER(_ptr)]),
    "pk_event_wait": (_st, [_ptr, _ptr]),
    "pk_event_synchronize": (_st, [_ptr]),
    "pk_event_elapsed": (_st, [_ptr, _ptr, POINTER(c_float)]),
    "pk_event_free": (_st, [_ptr]),
    "pk_dtype_name": (c_char_p, [c_int]),
    "pk_dtype_size": (c_size_t, [c_int]),
    "pk_f32_to_f16": (c_uint16, [c_float]),
    "pk_f16_to_f32": (c_float, [c_uint16]),
    "pk_f32_to_bf16": (c_uint16, [c_float]),
    "pk_bf16_to_f32": (c_float, [c_uint16]),
    # the DLManagedTensor pointers come straight out of a PyCapsule: void *
    "pk_tensor_from_dlpack": (_st, [_ptr, c_void_p, _T]),
    "pk_tensor_from_dlpack_managed": (_st, [_ptr, c_void_p, _T]),
    "pk_tensor_from_dlpack_versioned": (_st, [_ptr, c_void_p, _T]),
    "pk_tensor_to_dlpack": (_st, [_T, POINTER(c_void_p)]),
    "pk_tensor_to_dlpack_versioned": (_st, [_T, POINTER(c_void_p)]),
    "pk_gemm": (_st, [_ptr, POINTER(S.GemmDesc), _T, _T, _T, _T]),
    "pk_attention": (_st, [_ptr, POINTER(S.AttentionDesc), _T, _T, _T, _T]),
    "pk_rmsnorm": (_st, [_ptr, POINTER(S.NormDesc), _T, _T, _T]),
    "pk_layernorm": (_st, [_ptr, POINTER(S.NormDesc), _T, _T, _T, _T]),
    "pk_glu": (_st, [_ptr, c_int, _T, _T, _T]),
    "pk_bias_act": (_st, [_ptr, c_int, _T, _T, _T]),
    "pk_softmax": (_st, [_ptr, c_float, _T, _T]),
    "pk_rope": (_st, [_ptr, POINTER(S.RopeDesc), _T, _T]),
    "pk_chain": (_st, [_ptr, POINTER(S.ChainDesc), _T]),
    "pk_gather_rows": (_st, [_ptr, _T, _T, _T]),
    "pk_scatter_rows": (_st, [_ptr, _T, _T, _T]),
    "pk_graph_begin": (_st, [_ptr]),
    "pk_graph_end": (_st, [_ptr, POINTER(_ptr)]),
    "pk_graph_launch": (_st, [_ptr]),
    "pk_graph_free": (_st, [_ptr]),
}

_lock = threading.Lock()
_lib = None
_path = None


def _candidates():
    """Where to look, in order: the environment, then the system's search."""
    env = os.environ.get(ENV_LIBRARY)
    if env:
        # An explicit path is the user's decision: no silent fallback past it.
        return [env], True
    names = []
    found = ctypes.util.find_library("portkern")
    if found:
        names.append(found)
    if sys.platform == "darwin":
        names += ["libportkern.dylib", "libportkern.0.dylib"]
    elif sys.platform == "win32":
        names += ["portkern.dll", "libportkern.dll"]
    else:
        names += ["libportkern.so.0", "libportkern.so"]
    return names, False


def _load():
    names, explicit = _candidates()
    reasons = []
    for name in names:
        try:
            return ctypes.CDLL(name), name
        except OSError as e:
            reasons.append(f"{name}: {e}")
    how = (f"set {ENV_LIBRARY} to the path of libportkern.so (e.g. "
           f"{ENV_LIBRARY}=/path/to/build/libportkern.so), or install the library where the "
           f"dynamic loader finds it (meson install -C build; ldconfig)")
    if explicit:
        raise Error(f"cannot load libportkern from {ENV_LIBRARY}: {'; '.join(reasons)}. {how}")
    raise Error(f"libportkern not found ({'; '.join(reasons)}): {how}")


class _Missing:
    """Stands in for a function this build of the library lacks, so that only
    the calls that need it fail (an older library still runs the rest)."""

    def __init__(self, name, path):
        self._name, self._path = name, path

    def __call__(self, *args):
        raise Error(f"{self._name} is not in the loaded libportkern ({self._path}); "
                    f"a library older than this package: rebuild or update it",
                    "PK_ERR_UNSUPPORTED", S.STATUS["PK_ERR_UNSUPPORTED"])

    def __bool__(self):
        return False


class _Lib:
    """The loaded library's functions as attributes, prototypes applied."""

    def __init__(self, cdll, path):
        self.path = path
        self.cdll = cdll
        for name, (res, args) in _PROTOTYPES.items():
            try:
                fn = getattr(cdll, name)
            except AttributeError:
                setattr(self, name, _Missing(name, path))
                continue
            fn.restype = res
            fn.argtypes = args
            setattr(self, name, fn)

    def has(self, name):
        return not isinstance(getattr(self, name, None), _Missing)


def lib():
    """The library, loaded once (thread-safe); raises Error when absent."""
    global _lib, _path
    if _lib is None:
        with _lock:
            if _lib is None:
                cdll, path = _load()
                _path = path
                _lib = _Lib(cdll, path)
    return _lib


def library_path():
    """The file name the library was loaded from (loads it if needed)."""
    return lib().path


def _decode(b):
    return b.decode("utf-8", "replace") if b else ""


def last_error(ctx_handle=None):
    return _decode(lib().pk_last_error(ctx_handle))


def status_name(code):
    return _decode(lib().pk_status_string(code))


def check(fn, status, ctx_handle=None):
    """Raise Error for a non-zero status of `fn`, with the message portkern
    wrote for it.

    A failed call writes to its context's message when it has a live one,
    else to the thread's, and both slots keep older failures. Every message
    starts with the function's name, so the one that does belongs to this
    call; a stale message of an earlier call is never shown for this one.
    """
    if status == 0:
        return
    L = lib()
    slots = ([ctx_handle] if ctx_handle else []) + [None]
    texts = [_decode(L.pk_last_error(c)) for c in slots]
    msg = next((t for t in texts if t.startswith(fn + ":")), None)
    if msg is None:
        msg = next((t for t in texts if t), "") or f"{fn} failed (no message)"
    raise Error(msg, status_name(status), int(status))
