"""Tensor: a portkern buffer and a pk_tensor descriptor over it.

Ownership: a _Buffer owns one pk_buffer and frees it once, either at
Tensor.free() of the tensor that allocated or imported it, or when the last
Python reference to it goes (every view and DLPack export holds one). Views
share the _Buffer and never free it. A context that is closed has freed all
its buffers (pk_close does), so a _Buffer then frees nothing.
"""
import ctypes

from ._errors import Error
from ._lib import check, lib
from . import _dlpack
from . import _dtypes
from . import _structs as S


class _Buffer:
    """One pk_buffer: device memory portkern allocated, or the caller's
    memory it wraps (pk_buffer_wrap, DLPack import)."""

    def __init__(self, ctx, handle):
        self.ctx = ctx            # keeps the context open while the buffer lives
        self.handle = handle      # pk_buffer *, as an int
        self.freed = False
        self._exports = 0         # DLPack views handed out and not yet released

    def free(self):
        if self.freed:
            return
        if self._exports:
            raise Error(f"the buffer is still exported through DLPack ({self._exports} view(s) "
                        f"alive): free it after the consumers drop their views")
        if self.ctx.closed:
            self.freed = True
            return  # pk_close freed it already
        status = lib().pk_free(self.handle)
        if status != 0 and getattr(self.ctx, "_recording", None) is not None:
            # refused while a graph is recorded: the buffer is still live
            check("pk_free", status, self.ctx._live_handle)
        self.freed = True
        check("pk_free", status, self.ctx._live_handle)

    def __del__(self):
        # Garbage collection, maybe at interpreter exit: never raise. A free
        # waits for the queued work that uses the buffer (every backend's
        # free does, and for wrapped memory pk_free finishes the queue before
        # the producer's deleter runs), so dropping a tensor early is safe.
        # While a graph is recorded pk_free is refused: the free is put off
        # until the recording ends.
        try:
            if not self.freed and not self.ctx.closed:
                self.freed = True
                self.ctx._release("pk_free", self.handle)
        except Exception:
            pass


def _contiguous_strides(shape):
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(int(n), 1)
    return tuple(reversed(strides))


class Tensor:
    """A portkern tensor: a buffer of a Context, a byte offset into it, a
    dtype ('f32', 'f16', 'bf16'), a shape (1 to 4 dims) and strides in
    elements (never negative).

    Tensors made by Context.empty/zeros/tensor/from_dlpack own their buffer;
    views (t[...], t.T, t.view()) share it and never free it. free() is
    optional: a buffer is freed when its last tensor or DLPack view is
    garbage collected. Using a freed tensor raises Error (PK_ERR_INVALID_ARGUMENT:
    portkern recognises the stale handle).
    """

    def __init__(self, ctx, buffer, shape, strides, dtype, offset=0, owner=True):
        shape = tuple(int(n) for n in shape)
        if not 1 <= len(shape) <= S.MAX_DIMS:
            raise Error(f"a portkern tensor has 1 to {S.MAX_DIMS} dims, not {len(shape)} "
                        f"(shape {list(shape)})")
        self.ctx = ctx
        self._buf = buffer
        self._bufh = buffer.handle  # kept after free, so portkern can name the stale handle
        self.shape = shape
        self.strides = tuple(int(s) for s in strides) if strides is not None else \
            _contiguous_strides(shape)
        if len(self.strides) != len(shape):
            raise Error(f"strides {list(self.strides)} do not match shape {list(shape)}")
        self.dtype = _dtypes.name(dtype)
        self.offset = int(offset)
        self._owner = owner

    # ---- description

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def itemsize(self):
        return _dtypes.itemsize(self.dtype)

    @property
    def is_contiguous(self):
        """Row-major with no gaps (dims of size 1 may have any stride)."""
        want = _contiguous_strides(self.shape)
        return all(n == 1 or s == w for n, s, w in zip(self.shape, self.strides, want))

    @property
    def freed(self):
        return self._buf is None or self._buf.freed

    @property
    def buffer(self):
        """The pk_buffer * (an int) for passing to the C API directly."""
        return self._bufh

    @property
    def handle(self):
        """The native handle of the buffer's memory (pk_buffer_handle): a host
        address on ref, a CUdeviceptr / hipDeviceptr_t on CUDA / HIP, a cl_mem
        on OpenCL. The tensor's first element is `offset` bytes past it."""
        h = ctypes.c_size_t()
        check("pk_buffer_handle", lib().pk_buffer_handle(self._bufh, ctypes.byref(h)),
              self.ctx._live_handle)
        return h.value

    @property
    def is_wrapped(self):
        """True when the memory is the caller's (DLPack import), False when
        portkern allocated it."""
        r = lib().pk_buffer_is_wrapped(self._bufh)
        if r < 0:
            raise Error("pk_buffer_is_wrapped: not a live pk_buffer (freed, or its context closed)",
                        "PK_ERR_INVALID_ARGUMENT", S.STATUS["PK_ERR_INVALID_ARGUMENT"])
        return bool(r)

    def desc(self):
        """This tensor as a pk_tensor (ctypes struct)."""
        t = S.TensorDesc()
        t.buf = self._bufh
        t.offset = self.offset
        t.dtype = S.DTYPES[self.dtype][0]
        t.ndim = self.ndim
        for i, (n, s) in enumerate(zip(self.shape, self.strides)):
            t.shape[i] = n
            t.stride[i] = s
        return t

    def _extent_bytes(self):
        """Bytes from the first element to past the furthest one."""
        if self.size == 0:
            return 0
        last = sum((n - 1) * s for n, s in zip(self.shape, self.strides))
        return (last + 1) * self.itemsize

    def __repr__(self):
        state = " freed" if self.freed else ""
        return (f"<portkern.Tensor {self.dtype} shape={list(self.shape)} "
                f"strides={list(self.strides)} offset={self.offset} on {self.ctx.name}{state}>")

    # ---- host copies (blocking)

    def numpy(self, raw=False):
        """A new NumPy array with this tensor's values (pk_download; waits for
        the queued work). f32 gives float32, f16 float16, bf16 float32 (exact:
        every bf16 value is a float32), or with raw=True bf16's bits as uint16."""
        np = _dtypes.numpy()
        store = _dtypes.storage_numpy_dtype(self.dtype)
        if self.size == 0:
            return _dtypes.from_storage(np.zeros(self.shape, dtype=store), self.dtype, raw)
        nbytes = self._extent_bytes()
        raw_bytes = np.empty(nbytes, dtype=np.uint8)
        check("pk_download", lib().pk_download(self._bufh, self.offset,
                                               raw_bytes.ctypes.data_as(ctypes.c_void_p), nbytes),
              self.ctx._live_handle)
        elems = raw_bytes.view(store)
        view = np.lib.stride_tricks.as_strided(
            elems, shape=self.shape, strides=[s * self.itemsize for s in self.strides])
        return _dtypes.from_storage(np.array(view), self.dtype, raw)

    def upload(self, array):
        """Copy host values into this tensor (pk_upload; blocking, ordered
        after the queued work). The tensor must be contiguous; `array` is
        converted to the tensor's dtype (bf16: float values are rounded, a
        uint16 array is taken as bits)."""
        np = _dtypes.numpy()
        if not self.is_contiguous:
            raise Error("upload needs a contiguous tensor (write a contiguous one and copy with an op)")
        a = np.asarray(array)
        if a.shape != self.shape:
            if a.size != self.size:
                raise Error(f"upload: array shape {list(a.shape)} does not fit tensor shape "
                            f"{list(self.shape)}")
            a = a.reshape(self.shape)
        data = _dtypes.to_storage(a, self.dtype)
        if data.nbytes:
            check("pk_upload", lib().pk_upload(self._bufh, self.offset,
                                               data.ctypes.data_as(ctypes.c_void_p), data.nbytes),
                  self.ctx._live_handle)
        return self

    def fill_zero(self):
        """Set every byte of a contiguous tensor to zero (pk_fill, queued)."""
        if not self.is_contiguous:
            raise Error("fill_zero needs a contiguous tensor")
        n = self.size * self.itemsize
        if n:
            self.ctx._keep_for_graph(self._buf)  # pk_fill is recorded into a graph
            pattern = ctypes.c_uint32(0)
            # the widest pattern the range's alignment allows (16-bit tensors
            # may start or end on 2 bytes)
            width = 4 if n % 4 == 0 and self.offset % 4 == 0 else 2
            check("pk_fill", lib().pk_fill(self._bufh, self.offset, n, ctypes.byref(pattern), width),
                  self.ctx._live_handle)
        return self

    # ---- lifetime

    def free(self):
        """Free the buffer now (owners), or just let go of it (views). Safe to
        call twice. Raises Error while NumPy or another consumer still holds a
        DLPack view of the buffer."""
        buf = self._buf
        if buf is None:
            return
        if self._owner:
            buf.free()
        self._buf = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.free()
        return False

    # ---- views (no copy; they share the buffer)

    def view(self, shape=None, strides=None, offset=None, dtype=None):
        """Another description of the same memory: shape, strides (elements),
        byte offset, dtype. portkern checks it against the buffer at use."""
        shape = self.shape if shape is None else tuple(shape)
        if strides is None:
            strides = self.strides if shape == self.shape else _contiguous_strides(shape)
        return Tensor(self.ctx, self._live_buffer(), shape, strides,
                      self.dtype if dtype is None else dtype,
                      self.offset if offset is None else offset, owner=False)

    def reshape(self, *shape):
        """A view with a new shape; the tensor must be contiguous."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        shape = list(shape)
        if shape.count(-1) == 1:
            rest = 1
            for n in shape:
                if n != -1:
                    rest *= n
            shape[shape.index(-1)] = self.size // rest if rest else 0
        n = 1
        for d in shape:
            n *= d
        if n != self.size:
            raise Error(f"cannot reshape {list(self.shape)} to {shape}")
        if not self.is_contiguous:
            raise Error("reshape needs a contiguous tensor")
        return self.view(shape=shape, strides=_contiguous_strides(shape))

    def transpose(self, *axes):
        """A view with dims permuted (no axes: reversed)."""
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        if not axes:
            axes = tuple(reversed(range(self.ndim)))
        if sorted(axes) != list(range(self.ndim)):
            raise Error(f"transpose: {list(axes)} is not a permutation of {self.ndim} dims")
        return self.view(shape=[self.shape[a] for a in axes], strides=[self.strides[a] for a in axes])

    @property
    def T(self):
        return self.transpose()

    def __getitem__(self, key):
        """Basic indexing with ints and slices of positive step (portkern
        strides are never negative); returns a view."""
        if not isinstance(key, tuple):
            key = (key,)
        if any(k is Ellipsis for k in key):
            i = key.index(Ellipsis)
            fill = self.ndim - (len(key) - 1)
            key = key[:i] + (slice(None),) * fill + key[i + 1:]
        if len(key) > self.ndim:
            raise Error(f"too many indices ({len(key)}) for {self.ndim} dims")
        key = key + (slice(None),) * (self.ndim - len(key))
        offset = self.offset
        shape, strides = [], []
        for k, n, s in zip(key, self.shape, self.strides):
            if isinstance(k, slice):
                start, stop, step = k.indices(n)
                if step <= 0:
                    raise Error("portkern tensors take no negative steps (strides are never negative)")
                count = max(0, (stop - start + step - 1) // step)
                offset += start * s * self.itemsize if count else 0
                shape.append(count)
                strides.append(s * step)
            else:
                i = int(k)
                if i < 0:
                    i += n
                if not 0 <= i < n:
                    raise Error(f"index {k} is out of range for a dim of {n}")
                offset += i * s * self.itemsize
        if not shape:
            shape, strides = [1], [1]
        return self.view(shape=shape, strides=strides, offset=offset)

    def _live_buffer(self):
        if self._buf is None:
            raise Error("this tensor was freed", "PK_ERR_INVALID_ARGUMENT",
                        S.STATUS["PK_ERR_INVALID_ARGUMENT"])
        return self._buf

    # ---- DLPack export

    def __dlpack_device__(self):
        return self.ctx._dlpack_device()

    def __dlpack__(self, stream=None, *, max_version=None, dl_device=None, copy=None):
        """This tensor as a DLPack capsule, zero copy: the consumer's array is
        this tensor's memory. The capsule (then the consumer's view) keeps the
        buffer alive; an explicit free() is refused while a view is alive,
        and Context.close() frees the memory regardless, so close the context
        only after the consumers are done.

        stream (CUDA/HIP): the consumer's stream; portkern's queued work is
        finished first unless that stream is the context's own queue (or -1,
        which asks for no synchronisation)."""
        if copy:
            raise BufferError("portkern exports without copying; copy=True cannot be honoured")
        if dl_device is not None and tuple(dl_device) != tuple(self.__dlpack_device__()):
            raise BufferError(f"portkern cannot export to device {tuple(dl_device)} "
                              f"(the tensor is on {self.__dlpack_device__()})")
        buf = self._live_buffer()
        self.ctx._order_for_consumer(stream)
        L = lib()
        versioned = (max_version is not None and tuple(max_version)[0] >= 1
                     and L.has("pk_tensor_to_dlpack_versioned"))
        out = ctypes.c_void_p()
        desc = self.desc()
        if versioned:
            check("pk_tensor_to_dlpack_versioned",
                  L.pk_tensor_to_dlpack_versioned(ctypes.byref(desc), ctypes.byref(out)),
                  self.ctx._live_handle)
        else:
            check("pk_tensor_to_dlpack", L.pk_tensor_to_dlpack(ctypes.byref(desc), ctypes.byref(out)),
                  self.ctx._live_handle)
        return _dlpack.export_capsule(out.value, versioned, buf)
