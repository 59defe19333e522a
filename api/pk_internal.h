/* Entry points for portkern's own tools (conformance suite, bench); not part
 * of the public API and may change without notice. */
#ifndef PK_INTERNAL_H
#define PK_INTERNAL_H

#include "portkern.h"

/* Opens the reference backend in its same-precision variant: inputs in
 * their dtype, f32 accumulation, outputs rounded to their dtype. The
 * conformance suite measures each dtype's own error with it. */
PK_API pk_status pk_internal_open_ref_f32(pk_context **out);

#endif
