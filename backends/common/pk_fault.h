/* Fault injection for tests (pk_internal_fault_inject): one plan per
 * process, owned by the router and handed to each backend image through
 * pk_backend_iface.fault_inject, because the modules are separately loaded
 * libraries that each carry their own copy of this file's statics.
 *
 * Every allocation a backend makes inside an op (host scratch, device
 * scratch, cached program and kernel objects, program builds) first asks
 * pk_fault_alloc; when the plan says so it fails that one allocation, and
 * the site reports it exactly as it reports the real failure. Nothing here
 * runs unless a test armed the plan. */
#ifndef PK_FAULT_H
#define PK_FAULT_H

typedef struct pk_fault_plan {
    const void *dev;   /* the backend device whose sites count; NULL: none armed */
    int countdown;     /* allocation sites let through before the one that fails */
    int reached;       /* sites reached on dev since the plan was armed */
    int fired;         /* the failing site was reached (it fails only once) */
    int device_fault;  /* simulated device fault pending on dev (ref, OpenCL) */
    int launch;        /* kernel launches let through, on any device, before one is refused; -1: none */
} pk_fault_plan;

/* Makes this image's sites consult `plan` (the router's). */
void pk_fault_attach(pk_fault_plan *plan);

/* An allocation site inside an op on device `dev`: nonzero means fail it
 * as out of memory. */
int pk_fault_alloc(const void *dev);

/* Nonzero once, when a simulated device fault is pending on `dev`: the
 * backend's wait (finish) then reports PK_ERR_DEVICE_FAILURE. */
int pk_fault_device(const void *dev);

/* A kernel launch (OpenCL's pk_cl_run), on any device of the process
 * while a plan is armed (the tuner's own contexts too): nonzero means
 * refuse it as too large for the device. */
int pk_fault_launch(void);

/* PTX of pk_fault_store(u64 address): stores 1 there (CUDA, HIP on
 * NVIDIA: launched with address 0, a real device fault). */
extern const char pk_fault_store_ptx[];

#endif /* PK_FAULT_H */
