/* The report's two plots as plain SVG, written here so that a report needs
 * nothing beyond the C library: a log-log roofline with every case of every
 * platform (portkern, vendor library, unfused path), and per case the
 * fraction of the roofline each platform reaches beside the vendor library
 * and the portability over the platforms. Hover titles carry the figures. */
#include <math.h>
#include <string.h>

#include "bench_report.h"

static const char *const colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2"};
#define NCOLORS (int)(sizeof colors / sizeof colors[0])

static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '<') fputs("&lt;", f);
        else if (*s == '>') fputs("&gt;", f);
        else if (*s == '&') fputs("&amp;", f);
        else if (*s == '"') fputs("&quot;", f);
        else fputc(*s, f);
    }
}

static const char *si(double v, char *buf, size_t n)
{
    static const char *pre[] = {"", "K", "M", "G", "T", "P"};
    int e = 0;
    while (fabs(v) >= 1000 && e < 5) v /= 1000, e++;
    snprintf(buf, n, "%g%s", v, pre[e]);
    return buf;
}

/* ---- roofline: x = FLOP per byte, y = FLOP/s, both log10 */

typedef struct axes {
    double x0, x1, y0, y1; /* log10 limits */
    double left, top, w, h;
} axes;

static double px(const axes *a, double x) { return a->left + (log10(x) - a->x0) / (a->x1 - a->x0) * a->w; }
static double py(const axes *a, double y) { return a->top + a->h - (log10(y) - a->y0) / (a->y1 - a->y0) * a->h; }

static void marker(FILE *f, int kind, double x, double y, const char *color)
{
    if (kind == 0) fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\">", x, y, color);
    else if (kind == 1)
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"8\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\">",
                x - 4, y - 4, color);
    else
        fprintf(f, "<path d=\"M%.1f %.1fl4.5 8h-9z\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\">", x, y - 5,
                color);
}

static void marker_end(FILE *f, int kind) { fputs(kind == 0 ? "</circle>\n" : kind == 1 ? "</rect>\n" : "</path>\n", f); }

int pk_bench_svg_roofline(const pk_bench_report *rep, FILE *f)
{
    /* the limits cover every point and every roof's knee */
    double xmin = 1e30, xmax = 0, ymin = 1e30, ymax = 0;
    for (int i = 0; i < rep->nc * rep->np; i++) {
        const pk_bench_row *w = &rep->rows[i];
        if (w->r.flops <= 0 || w->r.bytes <= 0) continue;
        double x = w->r.flops / w->r.bytes, ms[3] = {w->ran ? w->r.ms : 0, w->r.vendor_ms, w->unfused_ms};
        xmin = fmin(xmin, x), xmax = fmax(xmax, x);
        for (int k = 0; k < 3; k++)
            if (ms[k] > 0) {
                double y = w->r.flops / (ms[k] * 1e-3);
                ymin = fmin(ymin, y), ymax = fmax(ymax, y);
            }
    }
    for (int p = 0; p < rep->np; p++)
        for (int t = 0; t < 3; t++) {
            double peak = rep->p[p].roof.flops[t], bw = rep->p[p].roof.copy_bps;
            if (peak <= 0 || bw <= 0) continue;
            ymax = fmax(ymax, peak), xmax = fmax(xmax, peak / bw);
            xmin = fmin(xmin, peak / bw), ymin = fmin(ymin, peak / 1e3);
        }
    if (xmax <= 0 || ymax <= 0) xmin = 0.1, xmax = 1e3, ymin = 1e9, ymax = 1e15;
    axes a = {floor(log10(xmin)), ceil(log10(xmax)), floor(log10(ymin)), ceil(log10(ymax)), 80, 40, 620, 460};
    if (a.x1 <= a.x0) a.x1 = a.x0 + 1;
    if (a.y1 <= a.y0) a.y1 = a.y0 + 1;
    int legend_h = 20 * (rep->np + 3);
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"960\" height=\"%d\" font-family=\"sans-serif\" "
               "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            560 > legend_h + 60 ? 560 : legend_h + 60);
    fprintf(f, "<text x=\"80\" y=\"24\" font-size=\"15\">Roofline: portkern bench --suite ");
    xml_text(f, rep->suite);
    fprintf(f, " (%s, commit ", rep->date);
    xml_text(f, rep->commit);
    fputs(")</text>\n", f);
    char b1[32], b2[32];
    for (int e = (int)a.x0; e <= (int)a.x1; e++) {
        double x = px(&a, pow(10, e));
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#ddd\"/>", x, a.top, x, a.top + a.h);
        fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n", x, a.top + a.h + 16,
                si(pow(10, e), b1, sizeof b1));
    }
    for (int e = (int)a.y0; e <= (int)a.y1; e++) {
        double y = py(&a, pow(10, e));
        fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#ddd\"/>", a.left, y, a.left + a.w, y);
        fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", a.left - 6, y + 4,
                si(pow(10, e), b1, sizeof b1));
    }
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">arithmetic intensity (minimal FLOP per minimal byte)</text>\n",
            a.left + a.w / 2, a.top + a.h + 36);
    fprintf(f, "<text transform=\"translate(20 %.0f) rotate(-90)\" text-anchor=\"middle\">FLOP/s</text>\n",
            a.top + a.h / 2);
    fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"black\"/>\n", a.left,
            a.top, a.w, a.h);
    /* the roofs: bandwidth slope up to each dtype's measured matrix rate */
    static const char *dtn[3] = {"f32", "f16", "bf16"};
    static const char *dash[3] = {"", "6 3", "2 2"};
    for (int p = 0; p < rep->np; p++) {
        const pk_bench_roof *r = &rep->p[p].roof;
        const char *col = colors[p % NCOLORS];
        for (int t = 0; t < 3; t++) {
            if (r->flops[t] <= 0 || r->copy_bps <= 0) continue;
            double xl = pow(10, a.x0), knee = r->flops[t] / r->copy_bps, xr = pow(10, a.x1);
            double yl = fmax(xl * r->copy_bps, pow(10, a.y0));
            xl = yl / r->copy_bps;
            fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" stroke-dasharray=\"%s\" "
                       "points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\"><title>%s %s: %s B/s, %s FLOP/s</title></polyline>\n",
                    col, dash[t], px(&a, xl), py(&a, yl), px(&a, knee), py(&a, r->flops[t]), px(&a, xr),
                    py(&a, r->flops[t]), rep->p[p].label, dtn[t], si(r->copy_bps, b1, sizeof b1),
                    si(r->flops[t], b2, sizeof b2));
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\" font-size=\"10\" text-anchor=\"end\">%s %s</text>\n",
                    a.left + a.w - 4, py(&a, r->flops[t]) - 3, col, rep->p[p].label, dtn[t]);
        }
    }
    for (int i = 0; i < rep->nc * rep->np; i++) {
        const pk_bench_row *w = &rep->rows[i];
        if (w->r.flops <= 0 || w->r.bytes <= 0) continue;
        double x = w->r.flops / w->r.bytes, ms[3] = {w->ran ? w->r.ms : 0, w->r.vendor_ms, w->unfused_ms};
        static const char *what[3] = {"portkern", "vendor", "unfused"};
        for (int k = 0; k < 3; k++) {
            if (ms[k] <= 0) continue;
            double y = w->r.flops / (ms[k] * 1e-3);
            marker(f, k, px(&a, x), py(&a, y), colors[w->platform % NCOLORS]);
            fprintf(f, "<title>");
            xml_text(f, w->c->name);
            char frac[24] = "roof n/a";
            if (w->roof_ms > 0) snprintf(frac, sizeof frac, "%.0f%% of roof", 100 * w->roof_ms / ms[k]);
            fprintf(f, " on %s, %s%s%s: %.4g ms, %s FLOP/s, %s</title>", rep->p[w->platform].label, what[k],
                    k == 1 ? " " : "", k == 1 && w->r.vendor ? w->r.vendor : "", ms[k], si(y, b1, sizeof b1), frac);
            marker_end(f, k);
        }
    }
    /* legend */
    double lx = a.left + a.w + 20, ly = a.top + 10;
    for (int p = 0; p < rep->np; p++, ly += 20) {
        fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/>", lx, ly - 10,
                colors[p % NCOLORS]);
        fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">%s ", lx + 18, ly, rep->p[p].label);
        char shortname[40];
        snprintf(shortname, sizeof shortname, "%.39s", rep->p[p].info.name);
        xml_text(f, shortname);
        fputs("</text>\n", f);
    }
    static const char *kinds[3] = {"portkern", "vendor library", "unfused path"};
    for (int k = 0; k < 3; k++, ly += 20) {
        marker(f, k, lx + 6, ly - 4, "black");
        marker_end(f, k);
        fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">%s</text>\n", lx + 18, ly, kinds[k]);
    }
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"10\">roofs: solid f32, dashed f16, dotted bf16</text>\n", lx,
            ly);
    fputs("</svg>\n", f);
    return ferror(f) ? -1 : 0;
}

/* ---- portability: per case, the fraction of the roofline of each
 * platform's portkern (solid) and vendor library (outlined), then the
 * portability over the platforms (black); the line at 1 is the limit. */

/* v in fmt, or "n/a" for NaN (an efficiency with nothing to judge it by). */
static const char *num(double v, const char *fmt, char *buf)
{
    if (v == v) snprintf(buf, 16, fmt, v);
    else snprintf(buf, 16, "n/a");
    return buf;
}

int pk_bench_svg_portability(const pk_bench_report *rep, FILE *f)
{
    const double left = 300, width = 480, bar = 9, top = 50;
    double scale_max = 1.0;
    for (int i = 0; i < rep->nc * rep->np; i++) /* fmax passes over NaN (n/a) */
        scale_max = fmax(scale_max, fmax(rep->rows[i].eff_roof, rep->rows[i].vendor_eff_roof));
    if (scale_max > 2) scale_max = 2; /* a point past twice the roof is a bad probe, not a result to scale by */
    double group = bar * (2 * rep->np + 1) + 12;
    double height = top + group * rep->nc + 40 + 20 * (rep->np + 2);
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"900\" height=\"%.0f\" font-family=\"sans-serif\" "
               "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            height);
    fprintf(f, "<text x=\"10\" y=\"22\" font-size=\"15\">Fraction of the roofline and performance portability: ");
    xml_text(f, rep->suite);
    char m0[16], m1[16];
    fprintf(f, "</text>\n<text x=\"10\" y=\"40\" font-size=\"11\">PP (Pennycook et al.) = harmonic mean over the "
               "platforms of the run; 0 when one cannot run the case. Suite mean PP: %s (roofline), %s (best "
               "other implementation)</text>\n",
            num(pk_bench_report_pp_mean(rep, 0), "%.2f", m0), num(pk_bench_report_pp_mean(rep, 1), "%.2f", m1));
    double bottom = top + group * rep->nc;
    for (int tick = 0; tick <= (int)(scale_max * 4 + 1e-9); tick++) {
        double v = tick / 4.0, x = left + v / scale_max * width;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"%s\"/>", x, top - 4, x, bottom,
                tick == 4 ? "black" : "#ddd");
        fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%.0f%%</text>\n", x, bottom + 14, 100 * v);
    }
    for (int c = 0; c < rep->nc; c++) {
        double y = top + c * group;
        fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">", left - 8, y + group / 2);
        xml_text(f, rep->cases[c].name);
        fputs("</text>\n", f);
        for (int p = 0; p < rep->np; p++) {
            const pk_bench_row *w = &rep->rows[c * rep->np + p];
            const char *col = colors[p % NCOLORS];
            double e[2] = {w->eff_roof, w->vendor_eff_roof};
            double v[2] = {e[0] == e[0] ? fmin(e[0], scale_max) : 0, e[1] == e[1] ? fmin(e[1], scale_max) : 0};
            for (int k = 0; k < 2; k++) {
                double yy = y + (2 * p + k) * bar;
                fprintf(f, "<rect x=\"%.0f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" stroke=\"%s\">",
                        left, yy, v[k] / scale_max * width, bar - 1, k ? "white" : col, col);
                char pct[16];
                fprintf(f, "<title>%s %s: %s of roof%s", rep->p[p].label,
                        k ? (w->r.vendor ? w->r.vendor : "vendor") : "portkern", num(100 * e[k], "%.1f%%", pct),
                        k && w->r.vendor_na[0] ? ", n/a: " : "");
                if (k) xml_text(f, w->r.vendor_na);
                fputs("</title></rect>\n", f);
            }
        }
        double yy = y + 2 * rep->np * bar, pr = rep->pp_roof[c], wpp = pr == pr ? fmin(pr, scale_max) : 0;
        char p0[16], p1[16];
        fprintf(f, "<rect x=\"%.0f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"black\"><title>PP %s (roofline), "
                   "%s (best other implementation)</title></rect>\n",
                left, yy, wpp / scale_max * width, bar - 1, num(pr, "%.3f", p0), num(rep->pp_best[c], "%.3f", p1));
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\">%s</text>\n", left + wpp / scale_max * width + 4,
                yy + bar - 1, num(pr, "%.2f", p0));
    }
    double ly = bottom + 40;
    for (int p = 0; p < rep->np; p++, ly += 20) {
        fprintf(f, "<rect x=\"10\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/>", ly - 10, colors[p % NCOLORS]);
        fprintf(f, "<rect x=\"26\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"white\" stroke=\"%s\"/>", ly - 10,
                colors[p % NCOLORS]);
        fprintf(f, "<text x=\"44\" y=\"%.0f\">%s ", ly, rep->p[p].label);
        xml_text(f, rep->p[p].info.name);
        fputs(": portkern (solid), vendor library (outlined)</text>\n", f);
    }
    fprintf(f, "<rect x=\"10\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"black\"/><text x=\"44\" y=\"%.0f\">"
               "performance portability over the platforms (fraction of roofline)</text>\n",
            ly - 10, ly);
    fputs("</svg>\n", f);
    return ferror(f) ? -1 : 0;
}
