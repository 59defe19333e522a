/* <string.h> for the run-time compilers: device code's memcpy is built
 * into both, and the system's header is host code. */
#pragma once
