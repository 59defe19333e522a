"""portkern.Error: the one exception type of the package."""


class Error(Exception):
    """A portkern call failed.

    status  the pk_status name ("PK_ERR_SHAPE_MISMATCH"), or None when the
            failure is the package's own (the library could not be loaded,
            an argument Python already knows is wrong)
    code    the pk_status value (int), or None alongside status None
    message what went wrong: pk_last_error of the call's context (or of the
            thread, for calls without one), or the package's own words
    """

    def __init__(self, message, status=None, code=None):
        self.message = message
        self.status = status
        self.code = code
        super().__init__(f"{status}: {message}" if status else message)
