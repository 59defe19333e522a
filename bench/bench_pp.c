/* The performance-portability metric of Pennycook, Sewall and Lee (2016):
 * PP(a, p, H) = |H| / sum over i in H of 1 / e_i(a, p) when every platform
 * i of H supports the application, else 0. Harmonic, so one platform where
 * the code is poor pulls the figure down more than a fast one lifts it:
 * the point of the metric. */
#include "bench_report.h"

double pk_bench_pp(const double *eff, int n)
{
    if (n <= 0) return 0;
    double inv = 0;
    for (int i = 0; i < n; i++) {
        if (!(eff[i] > 0)) return 0; /* unsupported (or not measured) */
        inv += 1.0 / eff[i];
    }
    return n / inv;
}

void pk_bench_report_score(pk_bench_report *rep)
{
    double e1[64], e2[64], e3[64];
    int np = rep->np < 64 ? rep->np : 64;
    for (int c = 0; c < rep->nc; c++) {
        for (int p = 0; p < np; p++) {
            pk_bench_row *w = &rep->rows[c * rep->np + p];
            double best = 0;
            double cand[3] = {w->ran ? w->r.ms : 0, w->r.vendor_ms, w->unfused_ms};
            for (int k = 0; k < 3; k++)
                if (cand[k] > 0 && (best == 0 || cand[k] < best)) best = cand[k];
            w->best_ms = best;
            w->eff_roof = w->ran && w->r.ms > 0 && w->roof_ms > 0 ? w->roof_ms / w->r.ms : 0;
            w->eff_best = w->ran && w->r.ms > 0 ? best / w->r.ms : 0;
            w->vendor_eff_roof = w->r.vendor_ms > 0 && w->roof_ms > 0 ? w->roof_ms / w->r.vendor_ms : 0;
            e1[p] = w->eff_roof;
            e2[p] = w->eff_best;
            e3[p] = w->vendor_eff_roof;
        }
        rep->pp_roof[c] = pk_bench_pp(e1, np);
        rep->pp_best[c] = pk_bench_pp(e2, np);
        rep->pp_vendor_roof[c] = pk_bench_pp(e3, np);
    }
}

double pk_bench_report_pp_mean(const pk_bench_report *rep, int best)
{
    if (rep->nc <= 0) return 0;
    double s = 0;
    for (int c = 0; c < rep->nc; c++) s += best ? rep->pp_best[c] : rep->pp_roof[c];
    return s / rep->nc;
}
