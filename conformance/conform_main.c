/* `portkern conform`: options, the backends and devices to test, the loop
 * over cases, the summary line. */
#include <stdlib.h>
#include <string.h>

#include "conform.h"

static const char *const op_names[CF_OP_COUNT] = {
    "gemm", "attention", "rmsnorm", "layernorm", "glu", "bias_act", "softmax", "rope", "chain", "index_rows", "bad_input",
};

const char *cf_op_name(int op) { return op >= 0 && op < CF_OP_COUNT ? op_names[op] : "device"; }

int cf_op_from_name(const char *name)
{
    for (int i = 0; i < CF_OP_COUNT; i++)
        if (!strcmp(name, op_names[i])) return i;
    return -1;
}

static void usage(FILE *f)
{
    fputs("usage: portkern conform [options]\n"
          "Runs every op over the case list on each target device and compares with the\n"
          "reference backend (float64 accumulation); checks every bad-input status.\n"
          "\n"
          "  --backend NAME[:IDX]  auto, ref, opencl, cuda or hip (default: every device of every\n"
          "                        available backend but ref). ref is the oracle: on ref the\n"
          "                        numerical cases are skipped, only the bad-input cases run\n"
          "  --op NAME             gemm, attention, rmsnorm, layernorm, glu, bias_act,\n"
          "                        softmax, rope, chain, index_rows, bad_input\n"
          "  --case SUBSTR         only cases whose name contains SUBSTR\n"
          "  --skip SUBSTR         leave out the cases whose name contains SUBSTR (up to 16\n"
          "                        of these; e.g. a kernel not yet run on a device, which\n"
          "                        a script checks apart under a time limit)\n"
          "  --json FILE           write a JSON report (every figure of every case)\n"
          "  --list                print the case names and exit\n"
          "  --seed N              seed added to each case's own (default 0)\n"
          "  --require-device      fail unless a device other than ref was checked (for\n"
          "                        scripts: with no GPU and no OpenCL, nothing numerical is)\n"
          "  -v                    verbose: timings and every output's figures\n"
          "  --help                this text\n"
          "\n"
          "Prints one line per case, then 'N passed, N failed, N skipped'; before it, a line\n"
          "saying so when no device but ref was checked (no numerical case was).\n"
          "Exit status: 0 if nothing failed, 1 otherwise, 2 for bad options.\n",
          f);
}

typedef struct options {
    int has_backend;
    pk_backend backend;
    int index; /* -1: every device */
    int op;    /* -1: every op */
    const char *case_sub;
    const char *skip[16];
    int n_skip;
    const char *json;
    int list;
    uint64_t seed;
    int verbose;
    int require_device;
} options;

static int parse(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->index = -1;
    o->op = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
        int takes = !strcmp(a, "--backend") || !strcmp(a, "--op") || !strcmp(a, "--case") || !strcmp(a, "--skip") ||
                    !strcmp(a, "--json") || !strcmp(a, "--seed");
        if (takes) {
            if (i + 1 >= argc) {
                fprintf(stderr, "conform: %s needs a value\n", a);
                return 0;
            }
            val = argv[++i];
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--backend")) {
            char name[32];
            const char *colon = strchr(val, ':');
            size_t n = colon ? (size_t)(colon - val) : strlen(val);
            if (n >= sizeof name) n = sizeof name - 1;
            memcpy(name, val, n);
            name[n] = 0;
            if (pk_backend_from_name(name, &o->backend) != PK_SUCCESS) {
                fprintf(stderr, "conform: unknown backend '%s'\n", name);
                return 0;
            }
            o->has_backend = 1;
            if (colon) {
                char *end;
                long v = strtol(colon + 1, &end, 10);
                if (*end || end == colon + 1 || v < 0) {
                    fprintf(stderr, "conform: bad device index in '%s'\n", val);
                    return 0;
                }
                o->index = (int)v;
            }
        } else if (!strcmp(a, "--op")) {
            o->op = cf_op_from_name(val);
            if (o->op < 0) {
                fprintf(stderr, "conform: unknown op '%s'\n", val);
                return 0;
            }
        } else if (!strcmp(a, "--case")) {
            o->case_sub = val;
        } else if (!strcmp(a, "--skip")) {
            if (o->n_skip == (int)(sizeof o->skip / sizeof o->skip[0])) {
                fprintf(stderr, "conform: more than %d --skip\n", o->n_skip);
                return 0;
            }
            o->skip[o->n_skip++] = val;
        } else if (!strcmp(a, "--json")) {
            o->json = val;
        } else if (!strcmp(a, "--seed")) {
            char *end;
            o->seed = strtoull(val, &end, 0);
            if (*end || end == val) {
                fprintf(stderr, "conform: bad seed '%s'\n", val);
                return 0;
            }
        } else if (!strcmp(a, "--list")) {
            o->list = 1;
        } else if (!strcmp(a, "--require-device")) {
            o->require_device = 1;
        } else if (!strcmp(a, "-v")) {
            o->verbose = 1;
        } else {
            fprintf(stderr, "conform: unknown option '%s'\n", a);
            return 0;
        }
    }
    return 1;
}

static int wanted(const options *o, int op, const char *name)
{
    if (o->op >= 0 && o->op != op) return 0;
    if (o->case_sub && !strstr(name, o->case_sub)) return 0;
    for (int i = 0; i < o->n_skip; i++)
        if (strstr(name, o->skip[i])) return 0;
    return 1;
}

static void run_bad(const options *o, cf_report *rep, const cf_target *tg, pk_context *other)
{
    for (int i = 0; i < cf_bad_count(); i++) {
        char name[160];
        cf_bad_name(i, name, sizeof name);
        if (!wanted(o, CF_OP_BAD_INPUT, name)) continue;
        cf_result res;
        memset(&res, 0, sizeof res);
        cf_bad_run(i, tg->ctx, other, &res);
        cf_report_case(rep, tg, name, CF_OP_BAD_INPUT, PK_F32, &res);
    }
}

/* Why a numerical case is not run on ref: comparing the oracle with itself
 * cannot fail, so it would count as a pass having checked nothing. */
#define CF_REF_SKIP "ref is the oracle: numerical cases compare other backends with it"

/* Runs every wanted case on one device. Returns 1 if a device other than
 * ref was opened (its numerical cases ran), else 0. */
static int run_target(const options *o, const cf_env *env, cf_report *rep, const cf_case_list *cases,
                      pk_backend b, int idx)
{
    cf_target tg;
    memset(&tg, 0, sizeof tg);
    tg.backend = b;
    tg.index = idx;
    tg.is_ref = b == PK_BACKEND_REF;
    snprintf(tg.label, sizeof tg.label, "%s:%d", pk_backend_name(b), idx);
    pk_status st = pk_open(b, idx, &tg.ctx);
    if (st != PK_SUCCESS) {
        char msg[768];
        snprintf(msg, sizeof msg, "%s: %s", pk_status_string(st), pk_last_error(NULL));
        cf_report_failure(rep, tg.label, "open", msg);
        return 0;
    }
    pk_device_info info;
    if (pk_context_info(tg.ctx, &info) == PK_SUCCESS) snprintf(tg.devname, sizeof tg.devname, "%s", info.name);
    printf("== %s  %s\n", tg.label, tg.devname);
    fflush(stdout);

    for (int i = 0; i < cases->n; i++) {
        const cf_case *c = &cases->v[i];
        if (!wanted(o, c->op, c->name)) continue;
        cf_result res;
        if (tg.is_ref) {
            memset(&res, 0, sizeof res);
            res.status = CF_SKIP;
            snprintf(res.msg, sizeof res.msg, "%s", CF_REF_SKIP);
        } else {
            cf_run_case(env, &tg, c, &res);
        }
        cf_report_case(rep, &tg, c->name, c->op, c->dtype, &res);
    }

    if (o->op < 0 || o->op == CF_OP_BAD_INPUT) {
        pk_context *other = NULL;
        if (pk_open(b, idx, &other) != PK_SUCCESS) other = NULL;
        run_bad(o, rep, &tg, other);
        if (other) pk_close(other);
    }
    pk_close(tg.ctx);
    return !tg.is_ref;
}

int pk_conform_main(int argc, char **argv)
{
    options o;
    if (!parse(argc, argv, &o)) {
        usage(stderr);
        return 2;
    }

    cf_case_list cases = {NULL, 0, 0};
    cf_cases_gemm(&cases);
    cf_cases_attention(&cases);
    cf_cases_rows(&cases);
    cf_cases_chain(&cases);
    cf_cases_index(&cases);

    if (o.list) {
        for (int i = 0; i < cases.n; i++)
            if (wanted(&o, cases.v[i].op, cases.v[i].name)) printf("%s\n", cases.v[i].name);
        for (int i = 0; i < cf_bad_count(); i++) {
            char name[160];
            cf_bad_name(i, name, sizeof name);
            if (wanted(&o, CF_OP_BAD_INPUT, name)) printf("%s\n", name);
        }
        free(cases.v);
        return 0;
    }

    cf_report rep;
    memset(&rep, 0, sizeof rep);
    rep.verbose = o.verbose;
    if (o.json && !cf_report_open_json(&rep, o.json)) {
        fprintf(stderr, "conform: cannot write '%s'\n", o.json);
        free(cases.v);
        return 2;
    }

    cf_env env;
    memset(&env, 0, sizeof env);
    env.seed = o.seed;
    env.verbose = o.verbose;
    pk_status st = pk_open(PK_BACKEND_REF, 0, &env.ref64);
    if (st == PK_SUCCESS) st = pk_internal_open_ref_f32(&env.ref32);
    if (st != PK_SUCCESS) {
        char msg[768];
        snprintf(msg, sizeof msg, "%s: %s", pk_status_string(st), pk_last_error(NULL));
        cf_report_failure(&rep, "ref:0", "open the reference", msg);
        goto summary;
    }

    int picked_auto = o.has_backend && o.backend == PK_BACKEND_AUTO;
    int n_checked = 0; /* devices other than ref that were opened and checked */
    int n_present = 0; /* devices other than ref that were found */
    if (picked_auto) {
        /* the device pk_open would pick (PORTKERN_BACKEND applies) */
        pk_context *ctx;
        pk_device_info info;
        st = pk_open(PK_BACKEND_AUTO, 0, &ctx);
        if (st != PK_SUCCESS) {
            cf_report_failure(&rep, "auto", "open", pk_last_error(NULL));
            goto summary;
        }
        pk_context_info(ctx, &info);
        pk_close(ctx);
        o.backend = info.backend;
        o.index = info.index;
    }

    pk_backend order[3] = {PK_BACKEND_OPENCL, PK_BACKEND_CUDA, PK_BACKEND_HIP};
    int ran_ref = 0;
    if (o.has_backend && o.backend == PK_BACKEND_REF) {
        run_target(&o, &env, &rep, &cases, PK_BACKEND_REF, o.index < 0 ? 0 : o.index);
        ran_ref = 1;
        if (picked_auto) {
            /* auto picked ref: were other devices there (PORTKERN_BACKEND=ref)? */
            for (int k = 0; k < 3; k++) {
                int n = 0;
                if (pk_device_count(order[k], &n) == PK_SUCCESS && n > 0) n_present += n;
            }
        }
    } else {
        for (int k = 0; k < 3; k++) {
            pk_backend b = order[k];
            if (o.has_backend && o.backend != b) continue;
            int n = 0;
            st = pk_device_count(b, &n);
            if (st != PK_SUCCESS || n <= 0) {
                const char *why = pk_backend_unavailable_reason(b);
                printf("--  %s unavailable: %s\n", pk_backend_name(b),
                       why ? why : st != PK_SUCCESS ? pk_last_error(NULL) : "no device");
                continue;
            }
            if (o.index >= 0) {
                if (o.index >= n) {
                    char msg[128];
                    snprintf(msg, sizeof msg, "no device %d (%d present)", o.index, n);
                    char label[32];
                    snprintf(label, sizeof label, "%s:%d", pk_backend_name(b), o.index);
                    cf_report_failure(&rep, label, "open", msg);
                    continue;
                }
                n_present++;
                n_checked += run_target(&o, &env, &rep, &cases, b, o.index);
            } else {
                n_present += n;
                for (int i = 0; i < n; i++) n_checked += run_target(&o, &env, &rep, &cases, b, i);
            }
        }
    }

    /* Bad-input cases always run on ref as well (numerical ones never do:
     * ref against itself cannot fail). */
    if (!ran_ref && (o.op < 0 || o.op == CF_OP_BAD_INPUT)) {
        cf_target tg;
        memset(&tg, 0, sizeof tg);
        tg.backend = PK_BACKEND_REF;
        tg.is_ref = 1;
        snprintf(tg.label, sizeof tg.label, "ref:0");
        snprintf(tg.devname, sizeof tg.devname, "reference");
        pk_context *other = NULL;
        if (pk_open(PK_BACKEND_REF, 0, &tg.ctx) == PK_SUCCESS) {
            pk_device_info info;
            if (pk_context_info(tg.ctx, &info) == PK_SUCCESS)
                snprintf(tg.devname, sizeof tg.devname, "%s", info.name);
            if (pk_open(PK_BACKEND_REF, 0, &other) != PK_SUCCESS) other = NULL;
            printf("== %s  %s (bad-input cases)\n", tg.label, tg.devname);
            run_bad(&o, &rep, &tg, other);
            if (other) pk_close(other);
            pk_close(tg.ctx);
        } else {
            cf_report_failure(&rep, "ref:0", "open", pk_last_error(NULL));
        }
    }

    /* Say plainly when nothing numerical was checked: every numerical case
     * compares a device with ref, and there was none but ref. */
    if (!n_checked) {
        char why[256];
        const char *env_b = getenv("PORTKERN_BACKEND");
        if (o.has_backend && o.backend == PK_BACKEND_REF && !picked_auto)
            snprintf(why, sizeof why, "--backend ref: no numerical case was checked (%s)", CF_REF_SKIP);
        else if (picked_auto && n_present > 0)
            snprintf(why, sizeof why, "PORTKERN_BACKEND=%.64s picked ref: no numerical case was checked",
                     env_b ? env_b : "");
        else if (n_present > 0)
            snprintf(why, sizeof why, "no device opened: no numerical case was checked");
        else if (o.has_backend && !picked_auto)
            snprintf(why, sizeof why, "no %s device: no numerical case was checked", pk_backend_name(o.backend));
        else
            snprintf(why, sizeof why, "no device but ref: no numerical case was checked");
        if (o.require_device)
            cf_report_failure(&rep, picked_auto ? "auto" : o.has_backend ? pk_backend_name(o.backend) : "any",
                              "device", "--require-device: no device other than ref was checked");
        printf("%s\n", why);
    }

summary:
    if (env.ref64) pk_close(env.ref64);
    if (env.ref32) pk_close(env.ref32);
    cf_report_close_json(&rep);
    free(cases.v);
    printf("%d passed, %d failed, %d skipped\n", rep.passed, rep.failed, rep.skipped);
    fflush(stdout);
    return rep.failed ? 1 : 0;
}
