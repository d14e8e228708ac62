/* Compiled with base's include directory only (the ctest layers.compile-upward):
 * base may use its own headers, and the views' vprof/table.h must not be found,
 * because each layer's headers are include/LAYER/vprof/ and a library sees
 * only its own layer's and those under it. */
#include "vprof/util.h"
#include "vprof/table.h"
