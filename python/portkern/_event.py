"""Event: a point on a context's queue (pk_event_*)."""
import ctypes

from ._errors import Error
from ._lib import check, lib
from . import _structs as S


class Event:
    """Recorded by Context.record_event(): reached when all the work queued
    on the context before it is done. pk_close frees the events of a context
    it closes; free() or garbage collection frees one earlier."""

    def __init__(self, ctx, handle):
        self.ctx = ctx
        self._h = handle

    def _handle(self):
        if self._h is None:
            raise Error("this event was freed", "PK_ERR_INVALID_ARGUMENT",
                        S.STATUS["PK_ERR_INVALID_ARGUMENT"])
        if self.ctx.closed:
            raise Error("this event's context is closed (pk_close freed the event)",
                        "PK_ERR_INVALID_ARGUMENT", S.STATUS["PK_ERR_INVALID_ARGUMENT"])
        return self._h

    def wait(self, ctx):
        """Make `ctx` (a context of the same backend; OpenCL: of the same
        cl_context) start its later work after this event. Does not block."""
        check("pk_event_wait", lib().pk_event_wait(ctx._handle(), self._handle()), ctx._live_handle)

    def synchronize(self):
        """Block until the event is reached; raises for a device failure."""
        check("pk_event_synchronize", lib().pk_event_synchronize(self._handle()),
              self.ctx._live_handle)

    def elapsed(self, end):
        """Milliseconds from this event to `end` (an event of the same
        context); waits for `end`."""
        ms = ctypes.c_float()
        check("pk_event_elapsed", lib().pk_event_elapsed(self._handle(), end._handle(),
                                                         ctypes.byref(ms)), self.ctx._live_handle)
        return ms.value

    def free(self):
        h, self._h = self._h, None
        if h is not None and not self.ctx.closed:
            check("pk_event_free", lib().pk_event_free(h), self.ctx._live_handle)

    def __del__(self):
        try:
            h, self._h = self._h, None
            if h is not None and not self.ctx.closed:
                lib().pk_event_free(h)
        except Exception:
            pass

    def __repr__(self):
        return f"<portkern.Event on {self.ctx.name}{' freed' if self._h is None else ''}>"
