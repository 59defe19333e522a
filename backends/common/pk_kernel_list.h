/* A kernel list (an X-macro of the kernels of a file family, read by the
 * kernel build and the plans) as host code sees it: an enum of its
 * entries by index, ID(kind, module, name, ...) naming each, COUNT after
 * them, and TYPE_names, the entry points' names by index (defined with
 * the plan). */
#ifndef PK_KERNEL_LIST_H
#define PK_KERNEL_LIST_H

#define PK_KERNEL_LIST_ENUM(LIST, ID, TYPE, COUNT)                                                         \
    typedef enum TYPE { LIST(ID) COUNT } TYPE;                                                             \
    extern const char *const TYPE##_names[COUNT]

#endif
