/* opencl_launch.h: a failed enqueue's status and the register rule. */
#include "opencl_launch.h"

int pk_cl_launch_may_not_fit(int err)
{
    return err == PK_CL_OUT_OF_RESOURCES || err == PK_CL_INVALID_WORK_GROUP_SIZE;
}

pk_status pk_cl_launch_status(int enqueue_err, int finish_err)
{
    if (enqueue_err == PK_CL_SUCCESS) return PK_SUCCESS;
    if (pk_cl_launch_may_not_fit(enqueue_err) && finish_err == PK_CL_SUCCESS) return PK_ERR_UNSUPPORTED;
    return PK_ERR_DEVICE_FAILURE;
}

int pk_cl_regs_fit(int regs, size_t items, uint64_t regs_per_block)
{
    if (regs <= 0) return 1;
    const uint64_t lane = ((uint64_t)regs + PK_CL_NV_REG_UNIT - 1) / PK_CL_NV_REG_UNIT * PK_CL_NV_REG_UNIT;
    const uint64_t warps = ((uint64_t)items + 31) / 32;
    return lane * 32 * warps <= regs_per_block;
}
