/* `portkern tune` and the tuning line of `portkern devices` (portkern_tune.c). */
#ifndef PK_PORTKERN_TUNE_H
#define PK_PORTKERN_TUNE_H

#include "portkern.h"

int pk_tune_main(int argc, char **argv);
/* One line on the kernel parameters of device `index` of b: tuned, a
 * table entry, or no entry; nothing where the backend has none. */
void pk_tune_print_status(pk_backend b, int index);

#endif
