/* The reference backend: plain C on the CPU, host memory, every op.
 * It is compiled twice from one source: with f64 accumulation (the oracle
 * of the conformance suite, listed as backend "ref") and with f32
 * accumulation (the "same-precision" result the conformance suite measures
 * the dtype's own error with; reachable only through pk_internal.h). */
#ifndef PK_REF_BACKEND_H
#define PK_REF_BACKEND_H

#include "backend.h"

const pk_backend_iface *pk_ref_backend_f64(void);
const pk_backend_iface *pk_ref_backend_f32(void);

#endif
