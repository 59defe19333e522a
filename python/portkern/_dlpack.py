"""DLPack capsules: taking a producer's tensor in, handing portkern's out.

The capsule protocol (https://dmlc.github.io/dlpack/latest/python_spec.html):
a capsule named "dltensor" (or "dltensor_versioned") holds a managed tensor
that whoever renames the capsule "used_dltensor[_versioned]" now owns; a
capsule still carrying its first name when it dies frees the tensor through
its destructor. All of it is done through CPython's capsule API via
ctypes.pythonapi, so this module is CPython-only, like ctypes.pythonapi is.
"""
import ctypes
import sys
from ctypes import c_char_p, c_int, c_void_p, py_object

from ._errors import Error
from . import _structs as S

_api = ctypes.pythonapi


def _forever(obj):
    """Take a reference nobody gives back: capsule names and the destructor
    must outlive every capsule, also capsules that die during interpreter
    shutdown, after this module's globals are gone."""
    _api.Py_IncRef(py_object(obj))
    return obj


def _name(text):
    buf = _forever(ctypes.create_string_buffer(text))
    return ctypes.cast(buf, c_char_p)


LEGACY = _name(b"dltensor")
VERSIONED = _name(b"dltensor_versioned")
USED_LEGACY = _name(b"used_dltensor")
USED_VERSIONED = _name(b"used_dltensor_versioned")

_IsValid = ctypes.PYFUNCTYPE(c_int, py_object, c_char_p)(("PyCapsule_IsValid", _api))
_GetPointer = ctypes.PYFUNCTYPE(c_void_p, py_object, c_char_p)(("PyCapsule_GetPointer", _api))
_SetName = ctypes.PYFUNCTYPE(c_int, py_object, c_char_p)(("PyCapsule_SetName", _api))
# The destructor gets the dying capsule as a bare address: no new reference
# may be taken to an object being deallocated.
_IsValidRaw = ctypes.PYFUNCTYPE(c_int, c_void_p, c_char_p)(("PyCapsule_IsValid", _api))
_GetPointerRaw = ctypes.PYFUNCTYPE(c_void_p, c_void_p, c_char_p)(("PyCapsule_GetPointer", _api))

CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, c_void_p)
_New = ctypes.PYFUNCTYPE(py_object, c_void_p, c_char_p, CAPSULE_DESTRUCTOR)(("PyCapsule_New", _api))


# A Python-API call through ctypes returns NULL whenever an exception is
# set after it, so calling one raises whatever is pending in this thread.
_RaisePending = ctypes.PYFUNCTYPE(c_int)(("Py_IsInitialized", _api))


def _clear_pending():
    """Take off an exception pending in the thread that calls us back.

    A consumer that fails after taking our capsule (NumPy refusing a device,
    say) drops it with its own exception set. Left there, it makes some call
    below fail at random (which calls do depends on the interpreter's
    specialisation of call sites, so it changes from the first callback to
    the next), and the callback's return is refused. It cannot be put back
    from Python either: it is reported here instead of being lost silently,
    and the consumer raises SystemError."""
    try:
        _RaisePending()
    except BaseException as e:
        print(f"portkern: a DLPack consumer failed with {type(e).__name__}: {e} "
              f"(that exception is lost: the consumer raises SystemError instead)",
              file=sys.stderr)


# ---------------------------------------------------------------- import


def is_capsule(obj):
    return type(obj).__name__ == "PyCapsule"


def consumer_stream(ctx, device_type):
    """The `stream` to pass to a producer's __dlpack__ so that its pending
    work on the tensor is ordered before what `ctx` queues (Python array
    API: for CUDA an int stream, 1 the legacy default stream, 0 not allowed;
    for ROCm 0 is the default stream; None for every other device)."""
    if device_type not in (S.DL_CUDA, S.DL_CUDA_MANAGED, S.DL_ROCM):
        return None
    if ctx.backend not in ("cuda", "hip"):
        return None  # portkern refuses the device anyway; ask nothing of the producer
    q = ctx.queue or 0
    if device_type == S.DL_ROCM:
        return q
    return q if q else 1


def call_dlpack(obj, stream):
    """obj.__dlpack__ asking for the versioned form, falling back for
    producers that predate the max_version keyword (NumPy < 2.1, PyTorch <
    2.4, ...), as the array API prescribes."""
    try:
        return obj.__dlpack__(stream=stream, max_version=(1, 0))
    except TypeError:
        return obj.__dlpack__(stream=stream)


def import_capsule(ctx_handle, capsule, lib, check):
    """Hand the capsule's managed tensor to portkern; returns the filled
    TensorDesc. On success portkern owns it (its deleter runs when the buffer
    is freed) and the capsule is marked used; on failure the capsule is left
    as it was, so its own destructor frees the tensor."""
    desc = S.TensorDesc()
    if _IsValid(capsule, VERSIONED):
        ptr = _GetPointer(capsule, VERSIONED)
        check("pk_tensor_from_dlpack_versioned",
              lib.pk_tensor_from_dlpack_versioned(ctx_handle, ptr, ctypes.byref(desc)), ctx_handle)
        _SetName(capsule, USED_VERSIONED)
    elif _IsValid(capsule, LEGACY):
        ptr = _GetPointer(capsule, LEGACY)
        check("pk_tensor_from_dlpack_managed",
              lib.pk_tensor_from_dlpack_managed(ctx_handle, ptr, ctypes.byref(desc)), ctx_handle)
        _SetName(capsule, USED_LEGACY)
    else:
        raise Error("not an unused DLPack capsule (named 'dltensor' or 'dltensor_versioned'): "
                    "a capsule can be consumed once")
    return desc


# ---------------------------------------------------------------- export
#
# The managed tensor portkern exports frees only itself: the memory stays
# the portkern buffer's. So that the buffer lives as long as the consumer's
# view, each export's deleter is swapped for ours, which drops the buffer
# reference kept here and then runs portkern's deleter.

_exports = {}  # managed tensor address -> (portkern's deleter address, keepalive)


def _release(addr):
    entry = _exports.pop(addr, None)
    if entry is None:
        return
    deleter, keep = entry
    keep._exports -= 1
    if deleter:
        S.DL_DELETER(deleter)(addr)


def _finalizing():
    """At interpreter exit, consumers' arrays die after this module: their
    deleters have nothing left to release, and nowhere to report to."""
    try:
        return sys.is_finalizing()
    except Exception:
        return True


def _export_deleter(addr):
    _clear_pending()  # first: any call fails while a consumer's exception is pending
    if _finalizing():
        return
    try:
        _release(addr)
    except Exception as e:  # nothing to raise to: a consumer is freeing
        print(f"portkern: releasing a DLPack export failed: {e!r}", file=sys.stderr)


def _capsule_destructor(capsule_addr):
    _clear_pending()
    if _finalizing():
        return
    try:
        # still carrying our name: never consumed, the tensor is ours to free
        for name in (LEGACY, VERSIONED):
            if _IsValidRaw(capsule_addr, name):
                _release(_GetPointerRaw(capsule_addr, name))
                return
    except Exception as e:
        print(f"portkern: freeing an unused DLPack capsule failed: {e!r}", file=sys.stderr)


_EXPORT_DELETER = _forever(S.DL_DELETER(_export_deleter))
_EXPORT_DELETER_ADDR = ctypes.cast(_EXPORT_DELETER, c_void_p).value
_CAPSULE_DESTRUCTOR = _forever(CAPSULE_DESTRUCTOR(_capsule_destructor))


def export_capsule(addr, versioned, keep):
    """A capsule over portkern's managed tensor at addr (from
    pk_tensor_to_dlpack[_versioned]); `keep` (the buffer) stays alive until
    the consumer's deleter call, or the capsule dies unused."""
    struct = (S.DLManagedTensorVersioned if versioned else S.DLManagedTensor).from_address(addr)
    _exports[addr] = (struct.deleter, keep)
    keep._exports += 1
    struct.deleter = _EXPORT_DELETER_ADDR
    try:
        return _New(addr, VERSIONED if versioned else LEGACY, _CAPSULE_DESTRUCTOR)
    except BaseException:
        _release(addr)
        raise


def managed_device(addr, versioned):
    """(device_type, device_id) of a managed tensor portkern exported."""
    struct = (S.DLManagedTensorVersioned if versioned else S.DLManagedTensor).from_address(addr)
    dev = struct.dl_tensor.device
    return int(dev.device_type), int(dev.device_id)


def free_managed(addr, versioned):
    """Run a managed tensor's own deleter (one that never left portkern)."""
    struct = (S.DLManagedTensorVersioned if versioned else S.DLManagedTensor).from_address(addr)
    if struct.deleter:
        S.DL_DELETER(struct.deleter)(addr)
