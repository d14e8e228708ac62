/* Collective types from kernel names and c10d arguments. */
#include <string.h>

#include "vprof/collective.h"

static const char *const names[VP_COLL_COUNT] = {
    "Other", "AllReduce", "AllGather", "ReduceScatter", "AllToAll", "Broadcast",
    "Reduce", "Send", "Recv", "SendRecv", "Barrier",
};

const char *vp_coll_name(vp_coll c)
{
    return (unsigned)c < VP_COLL_COUNT ? names[c] : names[0];
}

static int has_prefix(const char *s, size_t n, const char *lit, size_t *len)
{
    size_t m = strlen(lit);
    if (n < m || memcmp(s, lit, m) != 0)
        return 0;
    *len = m;
    return 1;
}

/* The word after the prefix, up to '_' or '(': matched exactly so that
 * "Reduce" is not taken for "ReduceScatter". */
vp_coll vp_coll_from_kernel(const char *name, size_t n)
{
    static const char *const prefixes[] = {"ncclDevKernel_", "ncclKernel_", "rcclKernel_"};
    size_t skip = 0;
    const char *p = NULL;
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes && !p; i++) {
        /* Kineto may put "void " or a namespace before the name. */
        const char *hit = NULL;
        size_t m = strlen(prefixes[i]);
        for (size_t j = 0; j + m <= n && j < 64; j++)
            if (memcmp(name + j, prefixes[i], m) == 0) {
                hit = name + j;
                break;
            }
        if (hit && has_prefix(hit, n - (size_t)(hit - name), prefixes[i], &skip))
            p = hit + skip;
    }
    if (!p && n > 5 && memcmp(name, "hcom_", 5) == 0) {
        /* HCCL operations: hcom_allReduce__483_2, hcom_receive__822_0 */
        size_t len = 0;
        while (5 + len < n && name[5 + len] != '_')
            len++;
        if (len == 7 && memcmp(name + 5, "receive", 7) == 0)
            return VP_COLL_RECV;
        return vp_coll_from_arg(name + 5, len);
    }
    if (!p)
        return VP_COLL_UNKNOWN;
    size_t len = 0, rest = n - (size_t)(p - name);
    while (len < rest && p[len] != '_' && p[len] != '(' && p[len] != '<')
        len++;
    for (int c = 1; c < VP_COLL_COUNT; c++)
        if (strlen(names[c]) == len && memcmp(p, names[c], len) == 0)
            return (vp_coll)c;
    return VP_COLL_UNKNOWN;
}

vp_coll vp_coll_from_arg(const char *s, size_t n)
{
    /* Compare with '_' removed and case folded: all_reduce == allreduce,
     * _allgather_base == allgatherbase. */
    char k[64];
    size_t m = 0;
    for (size_t i = 0; i < n && m + 1 < sizeof k; i++)
        if (s[i] != '_')
            k[m++] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
    k[m] = 0;
    static const struct {
        const char *prefix;
        vp_coll c;
    } map[] = {
        {"allreduce", VP_COLL_ALLREDUCE},       {"allgather", VP_COLL_ALLGATHER},
        {"reducescatter", VP_COLL_REDUCESCATTER}, {"alltoall", VP_COLL_ALLTOALL},
        {"broadcast", VP_COLL_BROADCAST},       {"reduce", VP_COLL_REDUCE},
        {"sendrecv", VP_COLL_SENDRECV},         {"send", VP_COLL_SEND},
        {"recv", VP_COLL_RECV},                 {"barrier", VP_COLL_BARRIER},
    };
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (strncmp(k, map[i].prefix, strlen(map[i].prefix)) == 0)
            return map[i].c;
    return VP_COLL_UNKNOWN;
}

double vp_coll_bus_factor(vp_coll c, int64_t n)
{
    if (n < 1)
        return -1;
    double r = (double)(n - 1) / (double)n;
    switch (c) {
    case VP_COLL_ALLREDUCE: return 2 * r;
    case VP_COLL_ALLGATHER:
    case VP_COLL_REDUCESCATTER:
    case VP_COLL_ALLTOALL: return r;
    case VP_COLL_BROADCAST:
    case VP_COLL_REDUCE:
    case VP_COLL_SEND:
    case VP_COLL_RECV:
    case VP_COLL_SENDRECV: return 1;
    default: return -1;
    }
}

int vp_dtype_size(const char *s, size_t n)
{
    static const struct {
        const char *name;
        int size;
    } map[] = {
        {"Float", 4},  {"float", 4},  {"float32", 4}, {"Double", 8}, {"double", 8},
        {"Half", 2},   {"half", 2},   {"float16", 2}, {"BFloat16", 2}, {"bfloat16", 2},
        {"Long", 8},   {"long", 8},   {"int64", 8},   {"Int", 4},     {"int", 4},
        {"int32", 4},  {"Short", 2},  {"int16", 2},   {"Char", 1},    {"Byte", 1},
        {"Bool", 1},   {"bool", 1},   {"int8", 1},    {"uint8", 1},   {"signed char", 1},
        {"unsigned char", 1}, {"ComplexFloat", 8}, {"ComplexDouble", 16}, {"ComplexHalf", 4},
        {"UInt16", 2}, {"UInt32", 4}, {"UInt64", 8},
    };
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (strlen(map[i].name) == n && memcmp(s, map[i].name, n) == 0)
            return map[i].size;
    if (n > 6 && memcmp(s, "Float8", 6) == 0)
        return 1;
    return 0;
}
