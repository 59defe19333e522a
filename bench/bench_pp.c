/* The performance-portability metric of Pennycook, Sewall and Lee (2016):
 * PP(a, p, H) = |H| / sum over i in H of 1 / e_i(a, p) when every platform
 * i of H supports the application, else 0. Harmonic, so one platform where
 * the code is poor pulls the figure down more than a fast one lifts it:
 * the point of the metric. */
#include <math.h>

#include "bench_report.h"

double pk_bench_pp(const double *eff, int n)
{
    if (n <= 0) return 0;
    double inv = 0;
    int na = 0;
    for (int i = 0; i < n; i++) {
        if (eff[i] != eff[i]) na = 1;       /* n/a: nothing to judge it by */
        else if (!(eff[i] > 0)) return 0;   /* unsupported (or not measured) */
        else inv += 1.0 / eff[i];
    }
    return na ? NAN : n / inv;
}

/* Per row: the architectural efficiency (roof time over ours; n/a where
 * the device's roof for the case is unknown) and the application
 * efficiency against the best *other* implementation on the platform: the
 * vendor library or the unfused path, whichever is faster, capped at 1
 * (at least as fast as anything else there). Never portkern's own time:
 * a platform where nothing else runs the case would score 1.0 against
 * itself however slow it is, so it gets n/a instead. */
void pk_bench_report_score(pk_bench_report *rep)
{
    double e1[64], e2[64], e3[64];
    int np = rep->np < 64 ? rep->np : 64;
    for (int c = 0; c < rep->nc; c++) {
        for (int p = 0; p < np; p++) {
            pk_bench_row *w = &rep->rows[c * rep->np + p];
            double best = 0;
            double cand[2] = {w->r.vendor_ms, w->unfused_ms};
            for (int k = 0; k < 2; k++)
                if (cand[k] > 0 && (best == 0 || cand[k] < best)) best = cand[k];
            int ran = w->ran && w->r.ms > 0;
            w->best_ms = best;
            w->eff_roof = !ran ? 0 : w->roof_ms > 0 ? w->roof_ms / w->r.ms : NAN;
            w->eff_best = !ran ? 0 : best > 0 ? fmin(1.0, best / w->r.ms) : NAN;
            w->vendor_eff_roof = !(w->r.vendor_ms > 0) ? 0 : w->roof_ms > 0 ? w->roof_ms / w->r.vendor_ms : NAN;
            e1[p] = w->eff_roof;
            e2[p] = w->eff_best;
            e3[p] = w->vendor_eff_roof;
        }
        rep->pp_roof[c] = pk_bench_pp(e1, np);
        rep->pp_best[c] = pk_bench_pp(e2, np);
        rep->pp_vendor_roof[c] = pk_bench_pp(e3, np);
    }
}

int pk_bench_report_pp_count(const pk_bench_report *rep, int best)
{
    int n = 0;
    for (int c = 0; c < rep->nc; c++) {
        double v = best ? rep->pp_best[c] : rep->pp_roof[c];
        n += v == v;
    }
    return n;
}

/* The mean over the cases that have a figure (n/a ones left out; NaN if none). */
double pk_bench_report_pp_mean(const pk_bench_report *rep, int best)
{
    double s = 0;
    int n = 0;
    for (int c = 0; c < rep->nc; c++) {
        double v = best ? rep->pp_best[c] : rep->pp_roof[c];
        if (v == v) s += v, n++;
    }
    return n ? s / n : NAN;
}
