/* Private to src/ascend/: the small JSON side files of a profile
 * (profiler_info, profiler_metadata, communication_group). */
#ifndef VPROF_ASCEND_JSONFILE_H
#define VPROF_ASCEND_JSONFILE_H

#include <cjson/cJSON.h>

/* The document at path (its first 16 MiB), or NULL when it cannot be
 * read or parsed. */
cJSON *vp_asc_load_json(const char *path);

#endif
