/* backends/opencl/opencl_ptx_edit.c: build options name the edits, each
 * edit is made once and together with the others, and what cannot be
 * made is refused with a reason. */
#include <stdlib.h>
#include <string.h>

#include "opencl_ptx_edit.h"
#include "unit_check.h"

/* shaped as NVIDIA's OpenCL writes inline PTX */
static const char marked[] = ".version 9.0\n.target sm_90, texmode_independent\n.address_size 64\n"
                             ".entry k(\n\t.param .u64 k_param_0\n)\n.reqntid 128, 1, 1\n{\n"
                             "\t//PKWG wgmma.fence.sync.aligned;\n\tret;\n}\n";

int main(void)
{
    pk_ptx_edits e = pk_ptx_edits_of("-DPK_PTX=1 -DPK_WGMMA=1 -cl-nv-maxrregcount=128");
    CHECK(e.wgmma == 1 && e.maxnreg == 128);
    CHECK(pk_ptx_edits_any(&e) && pk_ptx_edits_need_ptx(&e));

    /* none; a bound alone; a define whose name only ends like ours */
    e = pk_ptx_edits_of("-DPK_PTX=1 -DPK_WGMMA=0");
    CHECK(!pk_ptx_edits_any(&e));
    e = pk_ptx_edits_of("-cl-nv-maxrregcount=96");
    CHECK(pk_ptx_edits_any(&e) && !pk_ptx_edits_need_ptx(&e) && e.maxnreg == 96);
    e = pk_ptx_edits_of("-DXPK_WGMMA=1 -DNOT-cl-nv-maxrregcount=64");
    CHECK(!pk_ptx_edits_any(&e));
    e = pk_ptx_edits_of(NULL);
    CHECK(!pk_ptx_edits_any(&e));

    /* both in one text */
    e = pk_ptx_edits_of("-DPK_WGMMA=1 -cl-nv-maxrregcount=128");
    const char *why = "";
    size_t n = 0;
    char *out = pk_ptx_edited(marked, strlen(marked), &e, &n, &why);
    static const char want[] = ".version 9.0\n.target sm_90a, texmode_independent\n.address_size 64\n"
                               ".entry k(\n\t.param .u64 k_param_0\n)\n.reqntid 128, 1, 1\n.maxnreg 128\n{\n"
                               "\twgmma.fence.sync.aligned;\n\tret;\n}\n";
    CHECK(out != NULL && n == strlen(want) && strcmp(out, want) == 0);
    free(out);

    /* the bound alone leaves the target and the marked lines */
    e = pk_ptx_edits_of("-cl-nv-maxrregcount=64");
    out = pk_ptx_edited(marked, strlen(marked), &e, &n, &why);
    CHECK(out != NULL && strstr(out, ".maxnreg 64\n{") && strstr(out, "sm_90,") && strstr(out, "//PKWG"));
    free(out);

    /* wgmma asked of text without its marker, or for another target: refused, with a reason */
    static const char plain[] = ".version 9.0\n.target sm_90\n.entry k(\n)\n{\n\tret;\n}\n";
    e = pk_ptx_edits_of("-DPK_WGMMA=1");
    why = "";
    CHECK(pk_ptx_edited(plain, strlen(plain), &e, &n, &why) == NULL && *why);
    /* a bound already there */
    static const char has[] = ".version 9.0\n.target sm_90\n.entry k(\n)\n.maxnreg 96\n{\n\tret;\n}\n";
    e = pk_ptx_edits_of("-cl-nv-maxrregcount=128");
    why = "";
    CHECK(pk_ptx_edited(has, strlen(has), &e, &n, &why) == NULL && *why);
    return failures != 0;
}
