/* What a failed kernel enqueue means for the context (pk_cl_run,
 * opencl_program.c), and the register rule a work-group must keep on
 * NVIDIA: plain C without OpenCL headers, so that a test decides both
 * without a device.
 *
 * NVIDIA's OpenCL answers clEnqueueNDRangeKernel with CL_OUT_OF_RESOURCES
 * when the launch cannot fit one multiprocessor (registers a work-item x
 * work-items over the register file, local memory): nothing was queued and
 * the queue is fine. It also answers CL_OUT_OF_RESOURCES for an earlier
 * kernel's fault, which the queue keeps. So a launch refused so is told
 * apart by a clFinish on the queue right after: if that succeeds, the
 * launch did not fit (PK_ERR_UNSUPPORTED: this device cannot run that
 * launch; the context stays usable); if it fails, the device failed
 * (PK_ERR_DEVICE_FAILURE, which loses the context). CL_INVALID_WORK_GROUP_SIZE
 * (the work-group over CL_KERNEL_WORK_GROUP_SIZE, which counts the
 * kernel's registers) is treated alike. */
#ifndef PK_OPENCL_LAUNCH_H
#define PK_OPENCL_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#include "portkern.h"

/* The OpenCL codes these decisions use (CL/cl.h's; opencl_program.c
 * checks that they agree) */
#define PK_CL_SUCCESS 0
#define PK_CL_OUT_OF_RESOURCES (-5)
#define PK_CL_INVALID_WORK_GROUP_SIZE (-54)

/* 1 when an enqueue that returned err may have been refused for size
 * alone, so that a clFinish of the queue should decide (pk_cl_launch_status) */
int pk_cl_launch_may_not_fit(int err);

/* For a launch whose enqueue returned enqueue_err (not PK_CL_SUCCESS),
 * given what clFinish on its queue returned right after (finish_err; asked
 * only where pk_cl_launch_may_not_fit): PK_ERR_UNSUPPORTED where the launch
 * did not fit a healthy queue, else PK_ERR_DEVICE_FAILURE (pk_cl_check then
 * says which: the allocation errors are PK_ERR_OUT_OF_MEMORY there). */
pk_status pk_cl_launch_status(int enqueue_err, int finish_err);

/* NVIDIA: the registers a work-group may hold (CL_DEVICE_REGISTERS_PER_BLOCK_NV),
 * 64 Ki on every GPU since compute capability 3.0 (Kepler to Blackwell) */
#define PK_CL_NV_REGS_PER_BLOCK 65536u
/* NVIDIA gives registers to whole warps of 32 lanes, 8 a lane at a time
 * (256 a warp) */
#define PK_CL_NV_REG_UNIT 8u

/* Whether work-groups of `items` work-items, each allowed up to `regs`
 * registers (-cl-nv-maxrregcount; 0: the compiler's choice, which the
 * kernels' reqd_work_group_size keeps inside the file), fit a register file
 * of regs_per_block: ceil(regs / 8) * 8 * 32 * ceil(items / 32) <=
 * regs_per_block. A bound the kernel may reach but the file cannot hold is
 * refused even where the compiled kernel happens to take fewer. */
int pk_cl_regs_fit(int regs, size_t items, uint64_t regs_per_block);

#endif
