#include "pk_fault.h"

#include <stddef.h>

/* Per image: the core and each module point at the router's one plan. */
static pk_fault_plan *active;

void pk_fault_attach(pk_fault_plan *plan) { active = plan; }

int pk_fault_alloc(const void *dev)
{
    pk_fault_plan *p = active;
    if (!p || !p->dev || p->dev != dev || p->fired) return 0;
    if (p->reached++ != p->countdown) return 0;
    p->fired = 1;
    return 1;
}

int pk_fault_device(const void *dev)
{
    pk_fault_plan *p = active;
    if (!p || !p->device_fault || p->dev != dev) return 0;
    p->device_fault = 0;
    return 1;
}

int pk_fault_launch(void)
{
    pk_fault_plan *p = active;
    if (!p || !p->dev || p->launch < 0) return 0;
    if (p->launch-- > 0) return 0;
    p->fired = 1;
    return 1;
}

/* PTX, so that the driver builds it for whatever NVIDIA GPU it runs on and
 * no kernel of the library carries a fault on purpose. Given address 0 it
 * stores through a null pointer: CUDA_ERROR_ILLEGAL_ADDRESS at the next
 * wait, sticky for the device's primary context. */
const char pk_fault_store_ptx[] =
    ".version 7.0\n"
    ".target sm_70\n"
    ".address_size 64\n"
    ".visible .entry pk_fault_store(.param .u64 pk_fault_store_p)\n"
    "{\n"
    ".reg .b64 %rd<2>;\n"
    ".reg .b32 %r<2>;\n"
    "ld.param.u64 %rd1, [pk_fault_store_p];\n"
    "mov.u32 %r1, 1;\n"
    "st.global.u32 [%rd1], %r1;\n"
    "ret;\n"
    "}\n";
