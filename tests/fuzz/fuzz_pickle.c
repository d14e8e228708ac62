/* libFuzzer target: the pickle decoder, then the snapshot model on what
 * it decodes.  Any input must end in a value or a clean error; the
 * sanitizers catch the rest.  Seeds: tests/fuzz/corpus/pickle/. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "vprof/memsnap.h"
#include "vprof/pickle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vp_error err = {0};
    vp_pk_doc *doc = vp_pk_decode(data, size, "fuzz", &err);
    if (!doc)
        return 0;
    vp_memsnap *s = vp_memsnap_from_pickle(vp_pk_root(doc), vp_pk_protocol(doc), "fuzz", &err);
    vp_pk_doc_free(doc);
    if (!s)
        return 0;
    for (size_t i = 0; i < s->ndevices; i++) {
        const vp_ms_device *d = &s->devices[i];
        vp_ms_stats st;
        vp_ms_device_stats(s, d, &st);
        vp_ms_live *lv;
        size_t n = vp_ms_live_at(s, d, st.peak_index, &lv);
        char site[256];
        for (size_t k = 0; k < n && k < 8; k++)
            vp_ms_site(s, lv[k].stack, 3, (int)(k & 1), site, sizeof site);
        free(lv);
        n = vp_ms_leaks(s, d, &lv);
        free(lv);
    }
    vp_memsnap_free(s);
    return 0;
}
