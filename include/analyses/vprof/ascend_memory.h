/* The memory summaries of an Ascend profile: memory_record.csv,
 * npu_module_mem.csv and operator_memory.csv.  Sizes are bytes
 * (torch_npu's MB and KB are binary: 2^20 and 2^10). */
#ifndef VPROF_ASCEND_MEMORY_H
#define VPROF_ASCEND_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/error.h"

typedef struct vp_asc_mem_point {
    int64_t ts;              /* ns */
    int64_t allocated;       /* bytes; -1 when the cell is empty (APP rows) */
    int64_t reserved;        /* bytes; -1 when missing */
    int64_t active;          /* bytes; -1 when absent (older header) */
} vp_asc_mem_point;

typedef struct vp_asc_mem_series {
    char *component;         /* PTA, GE, PTA+GE, APP, WORKSPACE; or a module (SLOG, HCCL ...) */
    char *device;            /* "NPU:0" */
    vp_asc_mem_point *p;     /* in file order (time order) */
    size_t n, cap;
    size_t peak_alloc, peak_reserved;   /* indices; the earliest wins a tie */
} vp_asc_mem_series;

typedef struct vp_asc_mem {
    vp_asc_mem_series *s;
    size_t n, cap;
} vp_asc_mem;

/* memory_record.csv (both generations, MB or KB) or npu_module_mem.csv
 * (whose reserved -1 means only a release was seen: missing). */
int vp_asc_read_memory(const char *path, vp_asc_mem *m, vp_error *err);
void vp_asc_mem_free(vp_asc_mem *m);

typedef struct vp_asc_opmem {
    char *name;
    char *device;
    int64_t size;            /* bytes (negative: allocated before the window) */
    int64_t alloc, release;  /* ns; -1 when empty (before the window / still live) */
    int64_t total_alloc;     /* Allocation Total Allocated, bytes; -1 when empty */
} vp_asc_opmem;

/* The allocator an operator_memory.csv row belongs to: "PTA" for aten::
 * (torch_npu's caching allocator), "GE" for cann:: (the graph engine),
 * else "". */
const char *vp_asc_opmem_component(const char *name);

/* operator_memory.csv: one row per block. */
int vp_asc_read_opmem(const char *path, vp_asc_opmem **rows, size_t *n, vp_error *err);
void vp_asc_opmem_free(vp_asc_opmem *rows, size_t n);

#endif
