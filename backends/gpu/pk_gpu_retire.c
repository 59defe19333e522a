#include <stdlib.h>

#include "pk_gpu_retire.h"

int pk_gpu_retire(pk_gpu_retired **list, const pk_gpu_retire_fns *f, void *dev, uintptr_t mem)
{
    pk_gpu_retired *r = malloc(sizeof *r);
    if (!r) return -1;
    if (f->record(dev, &r->event) != 0) {
        free(r);
        return -1;
    }
    r->mem = mem;
    r->next = *list;
    *list = r;
    return 0;
}

void pk_gpu_reap(pk_gpu_retired **list, const pk_gpu_retire_fns *f, void *dev, int all)
{
    for (pk_gpu_retired **at = list; *at;) {
        pk_gpu_retired *r = *at;
        if (all || f->query(r->event) != 0) {
            *at = r->next;
            f->destroy(r->event);
            f->free_mem(dev, r->mem);
            free(r);
        } else {
            at = &r->next;
        }
    }
}
