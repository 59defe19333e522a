"""Graph: a context's calls recorded once and replayed (pk_graph_*)."""
from ._errors import Error
from ._lib import check, lib
from . import _structs as S


def _invalid(message):
    return Error(message, "PK_ERR_INVALID_ARGUMENT", S.STATUS["PK_ERR_INVALID_ARGUMENT"])


class Graph:
    """Calls of a context recorded between Context.graph_begin() and
    Context.graph_end() (or in a `with ctx.record() as g:` block), queued
    again by each launch(). A replay reads its buffers as they are then: put
    a step's new indices, positions and lengths into the device tensors the
    recorded calls were given (i32 Tensors) before launching.

    The graph keeps its context, and the buffers of the tensors the recorded
    calls were given, alive while it lives, so that garbage collection never
    frees memory a replay uses (an explicit Tensor.free() still frees: do
    not free a graph's tensors before the graph). pk_close frees the graphs
    of a context it closes; free() or garbage collection frees one earlier.
    CUDA and HIP record graphs; other backends refuse graph_begin with
    PK_ERR_UNSUPPORTED."""

    def __init__(self, ctx, handle, keep=(), pending=False):
        self.ctx = ctx              # keeps the context open while the graph lives
        self._h = handle            # pk_graph *, as an int
        self._keep = list(keep)     # the _Buffers the recorded calls use
        self._pending = pending     # a `with ctx.record()` graph before the block ends

    def _handle(self):
        if self._h is None:
            if self._pending:
                raise _invalid("this graph is still being recorded: launch it after its "
                               "`with ctx.record()` block")
            raise _invalid("this graph was freed")
        if self.ctx.closed:
            raise _invalid("this graph's context is closed (pk_close freed the graph)")
        return self._h

    @property
    def handle(self):
        """The pk_graph * (an int), for the C API."""
        return self._handle()

    @property
    def freed(self):
        return self._h is None and not self._pending

    def launch(self):
        """Queue the recorded work once more on the context's queue (no
        wait; Context.finish(), an event or Tensor.numpy() waits)."""
        check("pk_graph_launch", lib().pk_graph_launch(self._handle()), self.ctx._live_handle)

    def free(self):
        """Free the graph now; safe to call twice. While the context records
        another graph, the free is done when that recording ends."""
        h, self._h = self._h, None
        self._pending = False
        keep, self._keep = self._keep, []
        if h is not None and not self.ctx.closed:
            check("pk_graph_free", self.ctx._release("pk_graph_free", h, keep),
                  self.ctx._live_handle)

    def _adopt(self, other):
        """Take over another Graph's handle and buffers (the end of a `with
        ctx.record()` block fills the graph its `as` target names)."""
        self._h, self._keep, self._pending = other._h, other._keep, False
        other._h, other._keep = None, []

    def __del__(self):
        try:
            h, self._h = self._h, None
            if h is not None and not self.ctx.closed:
                self.ctx._release("pk_graph_free", h, self._keep)
        except Exception:
            pass

    def __repr__(self):
        state = " recording" if self._pending else " freed" if self._h is None else ""
        return f"<portkern.Graph on {self.ctx.name}{state}>"


class Recording:
    """What Context.record() returns: `with ctx.record() as g:` begins a
    recording, and the end of the block ends it and fills `g`. When the
    block raises, the recording is ended and dropped (g stays empty) and the
    exception goes on."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.graph = None

    def __enter__(self):
        self.ctx.graph_begin()
        self.graph = Graph(self.ctx, None, pending=True)
        return self.graph

    def __exit__(self, etype, evalue, tb):
        g, self.graph = self.graph, None
        try:
            done = self.ctx.graph_end()
        except Error:
            g._pending = False
            if etype is None:
                raise
            return False  # the block's own exception is the one to see
        if etype is not None or not g._pending:
            # cut short by an exception, or g was freed inside the block
            g._pending = False
            done.free()
            return False
        g._adopt(done)
        return False
