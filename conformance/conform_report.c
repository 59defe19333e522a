/* One line per case on stdout, the counters, and the JSON report. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "conform.h"

static const char *status_word(int s) { return s == CF_PASS ? "PASS" : s == CF_FAIL ? "FAIL" : "SKIP"; }

int cf_report_open_json(cf_report *r, const char *path)
{
    r->json = fopen(path, "w");
    if (!r->json) return 0;
    fputs("[\n", r->json);
    r->json_count = 0;
    return 1;
}

void cf_report_close_json(cf_report *r)
{
    if (!r->json) return;
    fputs("\n]\n", r->json);
    fclose(r->json);
    r->json = NULL;
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
        else if (ch == '\n') fputs("\\n", f);
        else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
        else fputc(ch, f);
    }
    fputc('"', f);
}

static void json_num(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, "%.6g", v);
    else fputs("null", f);
}

static void json_record(cf_report *r, const cf_target *tg, const char *label, const char *devname,
                        const char *case_name, int op, const char *dtype, const cf_result *res)
{
    FILE *f = r->json;
    if (!f) return;
    fputs(r->json_count++ ? ",\n  {" : "  {", f);
    fputs("\"case\": ", f);
    json_str(f, case_name);
    fputs(", \"op\": ", f);
    json_str(f, cf_op_name(op));
    fputs(", \"backend\": ", f);
    json_str(f, label);
    fputs(", \"device\": ", f);
    json_str(f, devname);
    fputs(", \"dtype\": ", f);
    json_str(f, dtype);
    fputs(", \"status\": ", f);
    json_str(f, status_word(res->status));
    if (res->fig.have) {
        fputs(", \"err\": ", f);
        json_num(f, res->fig.err);
        fputs(", \"err_sp\": ", f);
        json_num(f, res->fig.err_sp);
        fputs(", \"nmse\": ", f);
        json_num(f, res->fig.nmse);
        fputs(", \"nmse_sp\": ", f);
        json_num(f, res->fig.nmse_sp);
        fputs(", \"floor_err\": ", f);
        json_num(f, res->fig.floor_err);
        fputs(", \"floor_nmse\": ", f);
        json_num(f, res->fig.floor_nmse);
        fputs(", \"threshold_err\": ", f);
        json_num(f, res->fig.thr_err);
        fputs(", \"threshold_nmse\": ", f);
        json_num(f, res->fig.thr_nmse);
    }
    fputs(", \"ms\": ", f);
    json_num(f, res->ms);
    fputs(", \"message\": ", f);
    json_str(f, res->msg);
    fputc('}', f);
    (void)tg;
}

static void count(cf_report *r, int status)
{
    if (status == CF_PASS) r->passed++;
    else if (status == CF_FAIL) r->failed++;
    else r->skipped++;
}

void cf_report_case(cf_report *r, const cf_target *tg, const char *case_name, int op, pk_dtype dt,
                    const cf_result *res)
{
    count(r, res->status);
    printf("%s  %s  %s", status_word(res->status), tg->label, case_name);
    if (res->fig.have)
        printf("  err=%.2e (sp %.2e) nmse=%.2e (sp %.2e)", res->fig.err, res->fig.err_sp, res->fig.nmse,
               res->fig.nmse_sp);
    if (r->verbose) printf("  %.1f ms", res->ms);
    if (res->msg[0]) printf("  %s", res->msg);
    putchar('\n');
    fflush(stdout);
    json_record(r, tg, tg->label, tg->devname, case_name, op, op == CF_OP_BAD_INPUT ? "" : cf_dtype_tag(dt),
                res);
}

void cf_report_failure(cf_report *r, const char *label, const char *what, const char *msg)
{
    cf_result res;
    memset(&res, 0, sizeof res);
    res.status = CF_FAIL;
    snprintf(res.msg, sizeof res.msg, "%s", msg);
    count(r, CF_FAIL);
    printf("FAIL  %s  %s  %s\n", label, what, msg);
    fflush(stdout);
    json_record(r, NULL, label, "", what, CF_OP_COUNT, "", &res);
}
