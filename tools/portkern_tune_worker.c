/* The tuner's worker process: pk_internal_tune starts it for one family
 * and kills it at the family's time limit (api/pk_tune_proc.c says why).
 * Not for running by hand. */
#include "pk_internal.h"

int main(int argc, char **argv) { return pk_internal_tune_worker(argc, argv); }
