/* The accelerators a trace's metadata lists, in both of Kineto's forms. */
#include <cjson/cJSON.h>

#include "vprof/trace.h"

const cJSON *vp_meta_devices(const cJSON *meta, const char **key)
{
    /* deviceProperties since torch 1.9; the tb_plugin era's traces (torch
     * 1.8) name the same list computeProperties */
    static const char *const keys[] = {"deviceProperties", "computeProperties"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(meta, keys[i]);
        if (cJSON_IsArray(v)) {
            if (key)
                *key = keys[i];
            return v;
        }
    }
    return NULL;
}

static int small_number(const cJSON *v)
{
    return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 100;
}

int vp_meta_device_cc(const cJSON *dev, int *major, int *minor)
{
    const cJSON *ma = cJSON_GetObjectItemCaseSensitive(dev, "computeMajor");
    const cJSON *mi = cJSON_GetObjectItemCaseSensitive(dev, "computeMinor");
    if (!ma) {   /* computeProperties */
        ma = cJSON_GetObjectItemCaseSensitive(dev, "major");
        mi = cJSON_GetObjectItemCaseSensitive(dev, "minor");
    }
    if (!small_number(ma))
        return 0;
    *major = (int)ma->valuedouble;
    *minor = small_number(mi) ? (int)mi->valuedouble : 0;
    return 1;
}
