/* opencl_launch.h, no device needed: which failed kernel enqueues keep the
 * context (a launch that did not fit a healthy queue: PK_ERR_UNSUPPORTED)
 * and which lose it (PK_ERR_DEVICE_FAILURE), and the register rule of a
 * work-group on NVIDIA. The enqueue itself is reached only on NVIDIA's
 * OpenCL (PoCL fits every launch portkern makes); tests/test_faults.c and
 * tests/test_tune.c take the same path on PoCL with an injected refusal. */
#include "opencl_launch.h"
#include "plan_check.h"

static void test_status(void)
{
    /* NVIDIA's answer to a launch over the register file or local memory:
     * the queue finishes, the context goes on */
    CHECK(pk_cl_launch_may_not_fit(PK_CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES may be a launch too large");
    CHECK(pk_cl_launch_status(PK_CL_OUT_OF_RESOURCES, PK_CL_SUCCESS) == PK_ERR_UNSUPPORTED,
          "CL_OUT_OF_RESOURCES on a healthy queue: status %d",
          (int)pk_cl_launch_status(PK_CL_OUT_OF_RESOURCES, PK_CL_SUCCESS));
    /* the same code for an earlier kernel's fault: the wait fails too */
    CHECK(pk_cl_launch_status(PK_CL_OUT_OF_RESOURCES, PK_CL_OUT_OF_RESOURCES) == PK_ERR_DEVICE_FAILURE,
          "CL_OUT_OF_RESOURCES, then clFinish CL_OUT_OF_RESOURCES");
    CHECK(pk_cl_launch_status(PK_CL_OUT_OF_RESOURCES, -36 /* CL_INVALID_COMMAND_QUEUE */) == PK_ERR_DEVICE_FAILURE,
          "CL_OUT_OF_RESOURCES, then clFinish CL_INVALID_COMMAND_QUEUE");
    /* a work-group over the kernel's CL_KERNEL_WORK_GROUP_SIZE */
    CHECK(pk_cl_launch_may_not_fit(PK_CL_INVALID_WORK_GROUP_SIZE), "CL_INVALID_WORK_GROUP_SIZE");
    CHECK(pk_cl_launch_status(PK_CL_INVALID_WORK_GROUP_SIZE, PK_CL_SUCCESS) == PK_ERR_UNSUPPORTED,
          "CL_INVALID_WORK_GROUP_SIZE on a healthy queue");
    /* anything else stays a device failure, healthy queue or not */
    static const int other[] = {-14 /* CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST */, -36, -48 /* INVALID_KERNEL */,
                                -9999};
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        CHECK(!pk_cl_launch_may_not_fit(other[i]), "%d may not fit", other[i]);
        CHECK(pk_cl_launch_status(other[i], PK_CL_SUCCESS) == PK_ERR_DEVICE_FAILURE, "%d: not a device failure",
              other[i]);
    }
    CHECK(pk_cl_launch_status(PK_CL_SUCCESS, PK_CL_SUCCESS) == PK_SUCCESS, "success");
}

static void test_regs_fit(void)
{
    const uint64_t file = PK_CL_NV_REGS_PER_BLOCK;
    static const struct {
        int regs;
        size_t items;
        int fits;
    } cases[] = {
        {0, 1024, 1},   /* the compiler's choice: reqd_work_group_size keeps it inside */
        {168, 256, 1},  /* gemm_mma_small's 4 x 2 warps: 43008 */
        {168, 384, 1},  /* 12 warps: 64512 */
        {168, 512, 0},  /* 4 x 4 warps, or 4 x 2 with kwarp 2: 86016 */
        {128, 512, 1},  /* exactly the file */
        {129, 512, 0},  /* 136 a lane: registers go 8 at a time */
        {136, 480, 1},  /* 15 warps: 65280 */
        {255, 256, 1},  /* 256 a lane x 256: the file */
        {255, 257, 0},  /* a ninth warp */
        {64, 1024, 1},
        {72, 1024, 0},
        {168, 33, 1},   /* two warps */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK(pk_cl_regs_fit(cases[i].regs, cases[i].items, file) == cases[i].fits, "%d regs x %zu items: want %d",
              cases[i].regs, cases[i].items, cases[i].fits);
    /* a device that says it has less */
    CHECK(pk_cl_regs_fit(168, 256, 32768) == 0 && pk_cl_regs_fit(128, 256, 32768) == 1, "a 32 Ki file");
}

int main(void)
{
    test_status();
    test_regs_fit();
    if (!failures) printf("opencl launch: ok\n");
    return failures != 0;
}
