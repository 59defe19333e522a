/* The report of `portkern bench --suite ... --out DIR`: every case on every
 * platform (backend + device) of the run, with its roofline, vendor and
 * unfused baselines, and the portability across the platforms. */
#ifndef PK_BENCH_REPORT_H
#define PK_BENCH_REPORT_H

#include <stdio.h>

#include "bench.h"

typedef struct pk_bench_platform {
    char label[48];          /* "opencl:0", "opencl:1/portable" */
    pk_device_info info;
    pk_bench_roof roof;
    char clocks[128];        /* as readable (nvidia-smi, /proc/cpuinfo); "" if not */
} pk_bench_platform;

typedef struct pk_bench_row {
    const pk_bench_case *c;
    int platform;
    int ran;                 /* portkern's op ran */
    char status[160];        /* why not, when !ran */
    pk_bench_result r;
    double roof_ms;          /* the roofline's time for the case on this platform */
    double unfused_ms;       /* 0: none, see unfused_na */
    char unfused_na[160];
    double eff_roof;         /* roof_ms / ms: the architectural efficiency; NaN: n/a (roof unknown) */
    double eff_best;         /* min(1, best_ms / ms): the application efficiency; NaN: n/a (no other
                              * implementation on the platform); 0: portkern did not run */
    double vendor_eff_roof;  /* the vendor library's roof_ms / vendor_ms */
    double best_ms;          /* the best other implementation on this platform (vendor, unfused); 0: none */
} pk_bench_row;

typedef struct pk_bench_report {
    const char *suite, *commit;
    char date[32];
    int reps;
    int np, nc;
    pk_bench_platform *p;
    const pk_bench_case *cases;
    pk_bench_row *rows;      /* rows[case * np + platform] */
    double *pp_roof, *pp_best, *pp_vendor_roof; /* per case, over the platforms; NaN: n/a */
} pk_bench_report;

/* Fills each row's efficiencies and each case's portability from the raw
 * figures (ms, vendor_ms, unfused_ms, roof_ms). */
void pk_bench_report_score(pk_bench_report *rep);
/* The suite's single figure: the mean of the cases' portability over the
 * cases that have one (NaN when none has); pk_bench_report_pp_count: how many. */
double pk_bench_report_pp_mean(const pk_bench_report *rep, int best);
int pk_bench_report_pp_count(const pk_bench_report *rep, int best);

int pk_bench_write_csv(const pk_bench_report *rep, FILE *f);
int pk_bench_write_json(const pk_bench_report *rep, FILE *f);
int pk_bench_svg_roofline(const pk_bench_report *rep, FILE *f);
int pk_bench_svg_portability(const pk_bench_report *rep, FILE *f);

/* The report mode of pk_bench_main. */
int pk_bench_report_main(int argc, char **argv);

#endif
