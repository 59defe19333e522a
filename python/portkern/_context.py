"""Devices, and Context: one device on one backend, with its queue."""
import ctypes

from ._errors import Error
from ._lib import check, lib
from . import _dlpack
from . import _dtypes
from . import _ops
from . import _structs as S
from ._event import Event
from ._graph import Graph, Recording
from ._tensor import Tensor, _Buffer


class DeviceInfo:
    """pk_device_info as Python values (backend as its name)."""

    __slots__ = ("backend", "index", "name", "vendor", "driver", "global_mem_bytes",
                 "local_mem_bytes", "compute_units", "simd_width", "is_cpu", "native_fp16",
                 "native_bf16", "matrix_units")

    def __init__(self, raw):
        for f, _ in S.DeviceInfo._fields_:
            v = getattr(raw, f)
            if isinstance(v, bytes):
                v = v.decode("utf-8", "replace")
            setattr(self, f, v)
        self.backend = S.BACKENDS[raw.backend] if 0 <= raw.backend < len(S.BACKENDS) else raw.backend
        for f in ("is_cpu", "native_fp16", "native_bf16", "matrix_units"):
            setattr(self, f, bool(getattr(self, f)))

    @property
    def spec(self):
        """The 'backend:index' string open() takes."""
        return f"{self.backend}:{self.index}"

    def as_dict(self):
        return {f: getattr(self, f) for f in self.__slots__}

    def __repr__(self):
        return f"<portkern.DeviceInfo {self.spec} {self.name!r}>"


_LISTED = ("ref", "opencl", "cuda", "hip")


def devices():
    """Every device of every backend that loads; backends that do not are
    skipped (unavailable() says why)."""
    L = lib()
    out = []
    for name in _LISTED:
        b = S.BACKEND[name]
        n = ctypes.c_int(0)
        if L.pk_device_count(b, ctypes.byref(n)) != 0:
            continue
        for i in range(n.value):
            raw = S.DeviceInfo()
            check("pk_device_info_get", L.pk_device_info_get(b, i, ctypes.byref(raw)))
            out.append(DeviceInfo(raw))
    return out


def unavailable():
    """{backend name: reason} for each backend without a usable device."""
    L = lib()
    out = {}
    for name in _LISTED:
        r = L.pk_backend_unavailable_reason(S.BACKEND[name])
        if r:
            out[name] = r.decode("utf-8", "replace")
    return out


def _parse(backend, index):
    """('opencl:1', 0) or ('opencl', 1) -> (pk_backend value, index)."""
    if not isinstance(backend, str):
        raise Error(f"backend must be a name ('auto', 'ref', 'opencl', 'cuda', 'hip'), "
                    f"not {backend!r}")
    name = backend.strip().lower()
    if ":" in name:
        name, _, idx = name.partition(":")
        try:
            parsed = int(idx)
        except ValueError:
            raise Error(f"backend {backend!r}: the index after ':' must be an integer") from None
        if index not in (0, parsed):
            raise Error(f"backend {backend!r} and index={index} disagree")
        index = parsed
    b = ctypes.c_int()
    check("pk_backend_from_name", lib().pk_backend_from_name(name.encode(), ctypes.byref(b)))
    return b.value, int(index)


def open(backend="auto", index=0):  # noqa: A001 - the package's verb, as in pk_open
    """Open a device: backend 'auto' (PORTKERN_BACKEND, else CUDA, HIP, an
    OpenCL GPU, an OpenCL CPU, ref), 'ref', 'opencl', 'cuda', 'hip', or the
    'opencl:1' form; index is the device within the backend."""
    b, index = _parse(backend, index)
    h = ctypes.c_void_p()
    check("pk_open", lib().pk_open(b, index, ctypes.byref(h)))
    return Context(h.value)


class Context:
    """A device with its queue. Ops are queued and run asynchronously;
    finish() waits. Used by one thread at a time (portkern.h, Threads):
    that includes dropping its tensors, whose free may wait on its queue.
    close() (or leaving a `with` block) frees every buffer, event and graph of
    the context, DLPack exports included: close it after the consumers are
    done."""

    def __init__(self, handle):
        self._h = handle
        self.closed = False
        self._dl_device = None
        self._info = None
        self._recording = None  # while a graph is recorded: {id: _Buffer} its calls use
        self._deferred = []     # (function, handle, keep) frees put off until it ends
        inf = self.info
        self.backend, self.index = inf.backend, inf.index

    @classmethod
    def open_on_queue(cls, backend, index=0, queue=None):
        """A context on the caller's queue (pk_open_on_queue): every op is
        queued there, in order with the caller's own work, so no
        synchronisation between the two is needed. `queue` is the native
        handle as an int: a CUstream / hipStream_t (0 or None: the legacy
        default stream / null stream), an in-order cl_command_queue, or None
        on ref. PyTorch: torch.cuda.current_stream().cuda_stream. The context
        does not own the queue; close() waits for it and leaves it."""
        b, index = _parse(backend, index)
        h = ctypes.c_void_p()
        check("pk_open_on_queue", lib().pk_open_on_queue(b, index, queue or None, ctypes.byref(h)))
        return cls(h.value)

    # ---- handles and state

    def _handle(self):
        if self.closed:
            raise Error("this context is closed", "PK_ERR_INVALID_ARGUMENT",
                        S.STATUS["PK_ERR_INVALID_ARGUMENT"])
        return self._h

    @property
    def _live_handle(self):
        """The handle for reading its error message; None once closed (the
        struct is gone)."""
        return None if self.closed else self._h

    @property
    def handle(self):
        """The pk_context * (an int), for the C API."""
        return self._handle()

    @property
    def name(self):
        return f"{self.backend}:{self.index}"

    @property
    def info(self):
        if self._info is None:
            raw = S.DeviceInfo()
            check("pk_context_info", lib().pk_context_info(self._handle(), ctypes.byref(raw)),
                  self._h)
            self._info = DeviceInfo(raw)
        return self._info

    @property
    def queue(self):
        """The native queue (pk_context_queue) as an int: CUstream,
        hipStream_t, cl_command_queue; None on ref (and for the legacy
        default stream)."""
        q = ctypes.c_void_p()
        check("pk_context_queue", lib().pk_context_queue(self._handle(), ctypes.byref(q)), self._h)
        return q.value

    def finish(self):
        """Wait for every queued op; raises for a device-side failure."""
        check("pk_finish", lib().pk_finish(self._handle()), self._h)

    def close(self):
        """Wait, then free the context and every buffer and event left on it.
        Safe to call twice."""
        if self.closed:
            return
        self.closed = True
        self._recording, self._deferred = None, []  # pk_close drops and frees them
        check("pk_close", lib().pk_close(self._h))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            if not self.closed:
                self.closed = True
                lib().pk_close(self._h)
        except Exception:
            pass

    def __repr__(self):
        state = " closed" if self.closed else ""
        return f"<portkern.Context {self.name}{state}>"

    # ---- memory

    def _alloc(self, nbytes):
        h = ctypes.c_void_p()
        # pk_alloc refuses 0 bytes; an empty tensor still needs a buffer
        check("pk_alloc", lib().pk_alloc(self._handle(), max(int(nbytes), 4), ctypes.byref(h)),
              self._h)
        return _Buffer(self, h.value)

    def empty(self, shape, dtype="f32"):
        """A new contiguous tensor (device memory, not initialised)."""
        shape = (int(shape),) if isinstance(shape, int) else tuple(int(n) for n in shape)
        n = 1
        for d in shape:
            if d < 0:
                raise Error(f"negative size in shape {list(shape)}", "PK_ERR_BAD_SIZE",
                            S.STATUS["PK_ERR_BAD_SIZE"])
            n *= d
        buf = self._alloc(n * _dtypes.itemsize(dtype))
        return Tensor(self, buf, shape, None, dtype)

    def zeros(self, shape, dtype="f32"):
        """A new contiguous tensor of zeros (pk_fill, queued)."""
        return self.empty(shape, dtype).fill_zero()

    def tensor(self, array, dtype=None):
        """A new tensor holding a copy of a host array (pk_upload). dtype
        defaults to the array's (float32 -> f32, float16 -> f16); give it to
        convert (e.g. float64 data with dtype='f32', or dtype='bf16', which
        rounds floats to nearest even and takes uint16 arrays as bits)."""
        np = _dtypes.numpy()
        a = np.asarray(array)
        dt = _dtypes.default_for(a) if dtype is None else _dtypes.name(dtype)
        t = self.empty(a.shape if a.ndim else (1,), dt)
        return t.upload(a)

    def from_dlpack(self, obj):
        """A tensor over another library's memory, zero copy: any object with
        __dlpack__ (NumPy on ref; PyTorch, CuPy on CUDA/HIP; ...) or a DLPack
        capsule. The producer's memory must be on this context's device
        (portkern refuses anything else with an Error). portkern owns the
        managed tensor: the producer's reference is dropped when the tensor is
        freed (free(), garbage collection, or close()).

        For CUDA/HIP contexts the producer is given this context's queue as
        `stream`, so its pending work on the tensor comes before ours. Dims of
        size 1 in front of more than 4 are dropped (portkern's limit)."""
        if isinstance(obj, Tensor) and obj.ctx is self:
            return obj.view()
        ctx_h = self._handle()
        if _dlpack.is_capsule(obj):
            capsule = obj
        elif hasattr(obj, "__dlpack__"):
            dev = obj.__dlpack_device__() if hasattr(obj, "__dlpack_device__") else (S.DL_CPU, 0)
            capsule = _dlpack.call_dlpack(obj, _dlpack.consumer_stream(self, int(dev[0])))
        else:
            raise Error(f"{type(obj).__name__} has no __dlpack__: use Context.tensor() to copy a "
                        f"host array")
        desc = _dlpack.import_capsule(ctx_h, capsule, lib(), check)
        buf = _Buffer(self, desc.buf)
        n = desc.ndim
        return Tensor(self, buf, list(desc.shape)[:n], list(desc.stride)[:n],
                      S.DTYPE_NAMES[desc.dtype], desc.offset)

    # ---- events

    def record_event(self):
        """An Event after all the work queued so far."""
        h = ctypes.c_void_p()
        check("pk_event_record", lib().pk_event_record(self._handle(), ctypes.byref(h)), self._h)
        return Event(self, h.value)

    def wait_event(self, event):
        """Start the work queued from now on after `event` (of this or another
        context of the same backend). Does not block the host."""
        event.wait(self)

    # ---- graphs

    @property
    def recording(self):
        """True between graph_begin() and graph_end()."""
        return self._recording is not None

    def graph_begin(self):
        """Record this context's calls instead of running them, until
        graph_end() (portkern.h, graphs). While recording, calls that copy
        from the host, wait, allocate or free (Tensor.upload/numpy, finish,
        Context.empty/zeros/tensor, an op without `out`, Tensor.free) fail,
        and so do ops given host positions or lengths (give i32 Tensors) or
        operands that are not portkern Tensors (import them with
        from_dlpack() before recording); a failed call is not recorded and
        recording goes on. Run the same calls once before recording, so
        that portkern's internal buffers have grown. CUDA and HIP only:
        elsewhere PK_ERR_UNSUPPORTED."""
        check("pk_graph_begin", lib().pk_graph_begin(self._handle()), self._h)
        self._recording = {}

    def graph_end(self):
        """End the recording: a Graph to launch() any number of times."""
        h = ctypes.c_void_p()
        try:
            check("pk_graph_end", lib().pk_graph_end(self._handle(), ctypes.byref(h)), self._h)
        finally:
            keep = self._end_recording()  # portkern records no more, also after a failure
        return Graph(self, h.value, keep.values())

    def record(self):
        """`with ctx.record() as g:` calls ... then `g.launch()`: graph_begin()
        and graph_end() as a block; a block that raises drops the recording."""
        return Recording(self)

    def _keep_for_graph(self, buf):
        """A buffer a recorded call uses stays alive while its graph lives."""
        if self._recording is not None and buf is not None:
            self._recording[id(buf)] = buf

    def _release(self, fn, handle, keep=None):
        """pk_free / pk_graph_free of a handle of this context, now, or when
        the recording in progress ends (pk_free is refused while recording,
        and a graph's free may wait on the queue being recorded). Returns the
        status (0 when put off)."""
        if self._recording is not None:
            self._deferred.append((fn, handle, keep))
            return 0
        return getattr(lib(), fn)(handle)

    def _end_recording(self):
        keep, self._recording = self._recording or {}, None
        deferred, self._deferred = self._deferred, []
        if not self.closed:
            L = lib()
            for fn, h, _ in deferred:
                getattr(L, fn)(h)  # as garbage collection does: nothing to raise to
        return keep

    # ---- DLPack export support

    def _dlpack_device(self):
        """(DLDeviceType, device_id) of this context's tensors, as
        pk_tensor_to_dlpack says (asked once, on a throwaway export)."""
        if self._dl_device is None:
            L = lib()
            if not L.has("pk_tensor_to_dlpack"):
                guess = {"ref": (S.DL_CPU, 0), "cuda": (S.DL_CUDA, self.index),
                         "hip": (S.DL_ROCM, self.index), "opencl": (S.DL_OPENCL, self.index)}
                return guess[self.backend]
            probe = self.empty((1,), "f32")
            out = ctypes.c_void_p()
            d = probe.desc()
            check("pk_tensor_to_dlpack", L.pk_tensor_to_dlpack(ctypes.byref(d), ctypes.byref(out)),
                  self._h)
            try:
                self._dl_device = _dlpack.managed_device(out.value, False)
            finally:
                _dlpack.free_managed(out.value, False)
                probe.free()
        return self._dl_device

    def _order_for_consumer(self, stream):
        """Make our queued work visible to a consumer on `stream` (array API
        rules): nothing when it is our own queue or -1, else finish."""
        if stream == -1:
            return
        if self.backend in ("cuda", "hip"):
            q = self.queue or 0
            dev_type = self._dlpack_device()[0]
            default = 0 if dev_type == S.DL_ROCM else 1
            if (q and stream == q) or (not q and stream in (None, default)):
                return
        self.finish()

    # ---- ops (see _ops.py for each one's contract)

    gemm = _ops.gemm
    attention = _ops.attention
    rmsnorm = _ops.rmsnorm
    layernorm = _ops.layernorm
    glu = _ops.glu
    bias_act = _ops.bias_act
    softmax = _ops.softmax
    rope = _ops.rope
    chain = _ops.chain
    gather_rows = _ops.gather_rows
    scatter_rows = _ops.scatter_rows
