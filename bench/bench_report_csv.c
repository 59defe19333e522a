/* The report's raw figures: CSV (one row per case and platform, every
 * number the table and plots are made of) and JSON (the same rows, the
 * run's conditions, each platform's roofline and the portability per
 * case), so a study can be redone from the files alone. */
#include <math.h>
#include <string.h>

#include "bench_report.h"

static void csv_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
        else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
        else fputc(ch, f);
    }
    fputc('"', f);
}

/* n/a (NaN) as the word, which CSV readers take for a missing value */
static void csv_num(FILE *f, double v)
{
    if (v == v) fprintf(f, "%.4f", v);
    else fputs("n/a", f);
}

/* Where the roof a row is judged against came from: the matrix rate's
 * source for GEMM and attention, the measured copy for the rest. */
static const char *roof_source(const pk_bench_roof *roof, const pk_bench_case *c)
{
    static char buf[256];
    if (c->op == PK_BENCH_GEMM || c->op == PK_BENCH_ATTENTION)
        snprintf(buf, sizeof buf, "matrix %s: %s; %s", pk_dtype_name(c->dtype), roof->matrix_from[c->dtype],
                 roof->source);
    else snprintf(buf, sizeof buf, "%s", roof->source);
    return buf;
}

/* JSON has no NaN or infinity */
static void json_num(FILE *f, double v) { fprintf(f, isfinite(v) ? "%.6g" : "null", v); }

static const char *op_name(pk_bench_op op)
{
    switch (op) {
    case PK_BENCH_GEMM: return "gemm";
    case PK_BENCH_ATTENTION: return "attention";
    case PK_BENCH_RMSNORM: return "add+rmsnorm";
    case PK_BENCH_ROPE: return "rope";
    case PK_BENCH_ROPE_INV_FREQ: return "rope+inv_freq";
    case PK_BENCH_GATHER: return "gather";
    case PK_BENCH_SCATTER: return "scatter";
    default: return "swiglu";
    }
}

int pk_bench_write_csv(const pk_bench_report *rep, FILE *f)
{
    fputs("suite,case,op,dtype,platform,device,status,flops,bytes,ms,spread,tflops,gbs,roof_ms,frac_roof,roof_source,"
          "vendor,vendor_ms,vendor_spread,vendor_frac_roof,vendor_na,unfused_ms,unfused_na,best_ms,frac_best,"
          "pp_roof,pp_best\n",
          f);
    for (int c = 0; c < rep->nc; c++)
        for (int p = 0; p < rep->np; p++) {
            const pk_bench_row *w = &rep->rows[c * rep->np + p];
            double ms = w->ran ? w->r.ms : 0;
            csv_str(f, w->c->suite);
            fputc(',', f);
            csv_str(f, w->c->name);
            fprintf(f, ",%s,%s,%s,", op_name(w->c->op), pk_dtype_name(w->c->dtype), rep->p[p].label);
            csv_str(f, rep->p[p].info.name);
            fputc(',', f);
            csv_str(f, w->ran ? "ok" : w->status);
            fprintf(f, ",%.6g,%.6g,%.6g,%.4f,%.6g,%.6g,%.6g,", w->r.flops, w->r.bytes, ms, w->r.spread,
                    ms > 0 ? w->r.flops / ms * 1e-9 : 0, ms > 0 ? w->r.bytes / ms * 1e-6 : 0, w->roof_ms);
            csv_num(f, w->eff_roof);
            fputc(',', f);
            csv_str(f, roof_source(&rep->p[p].roof, w->c));
            fputc(',', f);
            csv_str(f, w->r.vendor ? w->r.vendor : "");
            fprintf(f, ",%.6g,%.4f,", w->r.vendor_ms, w->r.vendor_spread);
            csv_num(f, w->vendor_eff_roof);
            fputc(',', f);
            char na[240];
            snprintf(na, sizeof na, "%s%s", w->r.vendor_error ? "ERROR: " : "", w->r.vendor_na);
            csv_str(f, na);
            fprintf(f, ",%.6g,", w->unfused_ms);
            csv_str(f, w->unfused_na);
            fprintf(f, ",%.6g,", w->best_ms);
            csv_num(f, w->eff_best);
            fputc(',', f);
            csv_num(f, rep->pp_roof[c]);
            fputc(',', f);
            csv_num(f, rep->pp_best[c]);
            fputc('\n', f);
        }
    return ferror(f) ? -1 : 0;
}

int pk_bench_write_json(const pk_bench_report *rep, FILE *f)
{
    fputs("{\n  \"tool\": \"portkern bench\",\n  \"suite\": ", f);
    json_str(f, rep->suite);
    fputs(",\n  \"date\": ", f);
    json_str(f, rep->date);
    fputs(",\n  \"commit\": ", f);
    json_str(f, rep->commit);
    fprintf(f, ",\n  \"reps\": %d,\n  \"timing\": \"device events, warm-up, median and p10..p90 spread, inputs "
               "rotated past the last-level cache\",\n  \"roof\": \"copy: the driver's device-to-device copy, "
               "measured; matrix: a CPU's hardware peak, a GPU's vendor library, never portkern's kernels; null "
               "fractions where unknown\",\n  \"best\": \"frac_best = min(1, best_ms / ms), best_ms the fastest "
               "other implementation on the platform (vendor library, unfused path); null (n/a) where there is "
               "none\",\n  \"platforms\": [\n",
            rep->reps);
    for (int p = 0; p < rep->np; p++) {
        const pk_bench_platform *pl = &rep->p[p];
        fputs("    {\"label\": ", f);
        json_str(f, pl->label);
        fputs(", \"backend\": ", f);
        json_str(f, pk_backend_name(pl->info.backend));
        fputs(", \"device\": ", f);
        json_str(f, pl->info.name);
        fputs(", \"vendor\": ", f);
        json_str(f, pl->info.vendor);
        fputs(", \"driver\": ", f);
        json_str(f, pl->info.driver);
        fputs(", \"clocks\": ", f);
        json_str(f, pl->clocks);
        fprintf(f, ", \"compute_units\": %d, \"global_mem_bytes\": %llu,\n     \"roofline\": {\"copy_bytes_per_s\": ",
                pl->info.compute_units, (unsigned long long)pl->info.global_mem_bytes);
        json_num(f, pl->roof.copy_bps);
        for (int t = 0; t < 3; t++) {
            fprintf(f, ", \"flops_%s\": ", pk_dtype_name((pk_dtype)t));
            json_num(f, pl->roof.flops[t]);
        }
        fputs(", \"source\": ", f);
        json_str(f, pl->roof.source);
        fputs(",\n       \"matrix_source\": {", f);
        for (int t = 0; t < 3; t++) {
            fprintf(f, "%s\"%s\": ", t ? ", " : "", pk_dtype_name((pk_dtype)t));
            json_str(f, pl->roof.matrix_from[t]);
        }
        fputs("},\n       \"matrix_detail\": ", f);
        json_str(f, pl->roof.matrix_detail);
        fprintf(f, "}}%s\n", p + 1 < rep->np ? "," : "");
    }
    fputs("  ],\n  \"results\": [\n", f);
    for (int i = 0; i < rep->nc * rep->np; i++) {
        const pk_bench_row *w = &rep->rows[i];
        fputs("    {\"case\": ", f);
        json_str(f, w->c->name);
        fprintf(f, ", \"op\": \"%s\", \"dtype\": \"%s\", \"platform\": ", op_name(w->c->op), pk_dtype_name(w->c->dtype));
        json_str(f, rep->p[w->platform].label);
        fputs(", \"status\": ", f);
        json_str(f, w->ran ? "ok" : w->status);
        fprintf(f, ",\n     \"shape\": {\"m\": %lld, \"n\": %lld, \"k\": %lld, \"batch\": %lld, \"sq\": %lld, \"skv\": "
                   "%lld, \"hq\": %lld, \"hkv\": %lld, \"d\": %lld, \"causal\": %d},\n     \"flops\": ",
                (long long)w->c->m, (long long)w->c->n, (long long)w->c->k, (long long)w->c->batch,
                (long long)w->c->sq, (long long)w->c->skv, (long long)w->c->hq, (long long)w->c->hkv,
                (long long)w->c->d, w->c->causal);
        double v[] = {w->r.flops, w->r.bytes, w->ran ? w->r.ms : 0, w->r.spread, w->roof_ms, w->eff_roof,
                      w->r.vendor_ms, w->r.vendor_spread, w->vendor_eff_roof, w->unfused_ms, w->best_ms, w->eff_best};
        static const char *k[] = {NULL, "bytes", "ms", "spread", "roof_ms", "frac_roof", "vendor_ms",
                                  "vendor_spread", "vendor_frac_roof", "unfused_ms", "best_ms", "frac_best"};
        for (size_t j = 0; j < sizeof v / sizeof v[0]; j++) {
            if (k[j]) fprintf(f, ", \"%s\": ", k[j]);
            json_num(f, v[j]);
        }
        fputs(",\n     \"vendor\": ", f);
        json_str(f, w->r.vendor ? w->r.vendor : "");
        fputs(", \"vendor_na\": ", f);
        json_str(f, w->r.vendor_na);
        fprintf(f, ", \"vendor_error\": %s", w->r.vendor_error ? "true" : "false");
        fputs(",\n     \"roof_source\": ", f);
        json_str(f, roof_source(&rep->p[w->platform].roof, w->c));
        fputs(", \"unfused_na\": ", f);
        json_str(f, w->unfused_na);
        fprintf(f, ", \"spread_over_10pct\": %s}%s\n", w->ran && w->r.spread > 0.10 ? "true" : "false",
                i + 1 < rep->nc * rep->np ? "," : "");
    }
    fputs("  ],\n  \"portability\": [\n", f);
    for (int c = 0; c < rep->nc; c++) {
        fputs("    {\"case\": ", f);
        json_str(f, rep->cases[c].name);
        fputs(", \"pp_roof\": ", f);
        json_num(f, rep->pp_roof[c]);
        fputs(", \"pp_best\": ", f);
        json_num(f, rep->pp_best[c]);
        fputs(", \"pp_vendor_roof\": ", f);
        json_num(f, rep->pp_vendor_roof[c]);
        fprintf(f, "}%s\n", c + 1 < rep->nc ? "," : "");
    }
    fputs("  ],\n  \"pp_mean_roof\": ", f);
    json_num(f, pk_bench_report_pp_mean(rep, 0));
    fputs(",\n  \"pp_mean_best\": ", f);
    json_num(f, pk_bench_report_pp_mean(rep, 1));
    fputs("\n}\n", f);
    return ferror(f) ? -1 : 0;
}
