/* Dense tensor peaks of accelerators, by device name.
 *
 * The order is the matching order: a key that is a substring of another
 * (H20 of H200, L40 of L40S, H100 of "H100 PCIe") comes after it, so the
 * first match is the most specific one.  Peaks with sparsity are never
 * used.  FP16 equals BF16 on every tensor core listed; FP8 is given where
 * the datasheet gives it, 0 (unknown or unsupported) elsewhere. */
#include <string.h>
#include <strings.h>

#include "vprof/flops.h"

#define BF16(x) {x, x, 0}
#define BF16_FP8(x, y) {x, x, y}

static const vp_peak peaks[] = {
    {"GB300", "GB300", BF16(2500), "torchtitan; VeOmni"},
    {"B300", "B300", BF16(2250), "torchtitan; VeOmni"},
    {"GB200", "GB200", BF16_FP8(2500, 5000), "NVIDIA Blackwell datasheet (VeOmni: 2565 at the measured clock)"},
    {"B200", "B200", BF16_FP8(2250, 4500), "NVIDIA Blackwell datasheet (VeOmni: 2382 at the measured clock)"},
    {"H200 NVL", "H200 NVL", BF16(836), "third-party tables"},
    {"H200", "H200 SXM", BF16_FP8(989, 1979), "NVIDIA H200 datasheet; torchtitan"},
    {"H100 NVL", "H100 NVL", BF16_FP8(835, 1671), "NVIDIA H100 datasheet; torchtitan"},
    {"H100 PCIe", "H100 PCIe", BF16_FP8(756, 1513), "NVIDIA H100 datasheet; torchtitan"},
    {"H100", "H100 SXM", BF16_FP8(989, 1979), "NVIDIA H100 datasheet; torchtitan"},
    {"H800 PCIe", "H800 PCIe", BF16_FP8(756, 1513), "as the H100 PCIe"},
    {"H800", "H800 SXM", BF16_FP8(989, 1979), "as the H100 SXM (VeOmni)"},
    {"H20", "H20", BF16_FP8(148, 296), "torchtitan; VeOmni"},
    {"L40S", "L40S", BF16_FP8(362.05, 733), "NVIDIA L40S datasheet"},
    {"L40", "L40", BF16_FP8(181.05, 362), "NVIDIA L40 datasheet"},
    {"L20", "L20", BF16(119.5), "VeOmni"},
    {"A100", "A100", BF16(312), "NVIDIA A100 datasheet; torchtitan; nanoGPT"},
    {"A800", "A800", BF16(312), "as the A100"},
    /* Volta has no BF16: FP16 only. */
    {"V100", "V100", {0, 125, 0}, "NVIDIA V100 datasheet (SXM2; FP16 only)"},
    {"MI355", "MI355X", BF16(2500), "torchtitan"},
    {"MI325", "MI325X", BF16_FP8(1307.4, 2614.9), "AMD specifications"},
    {"MI300X", "MI300X", BF16_FP8(1307.4, 2614.9), "AMD specifications (torchtitan: 1300)"},
    {"MI250X", "MI250X (one GCD)", BF16(191.5), "torchtitan"},
    {"910B1", "Ascend 910B1", BF16(373.9), "Huawei TorchTitan NPU plugin (Cube peak)"},
    {"910B2", "Ascend 910B2", BF16(353.9), "Huawei TorchTitan NPU plugin (Cube peak)"},
    {"910B3", "Ascend 910B3", BF16(294.9), "Huawei TorchTitan NPU plugin (Cube peak)"},
    {"910B4", "Ascend 910B4", BF16(245.8), "Huawei TorchTitan NPU plugin (Cube peak)"},
    {"910_93", "Ascend 910_93 (A3, one die)", BF16(353.9), "Huawei TorchTitan NPU plugin (Cube peak)"},
    {"950PR", "Ascend 950PR", BF16(432), "Huawei TorchTitan NPU plugin"},
    {"950DT", "Ascend 950DT", BF16(486), "Huawei TorchTitan NPU plugin"},
    {NULL, NULL, {0, 0, 0}, NULL},
};

/* Case-insensitive substring search; names come as "NVIDIA H100 80GB HBM3",
 * "Ascend910B3" or whatever a user types after --gpu. */
static int contains(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return 1;
    return 0;
}

const vp_peak *vp_peak_lookup(const char *name)
{
    if (!name)
        return NULL;
    for (const vp_peak *p = peaks; p->key; p++)
        if (contains(name, p->key))
            return p;
    return NULL;
}

double vp_peak_find(const char *device_name, vp_dtype d, const vp_peak **row)
{
    *row = vp_peak_lookup(device_name);
    if (!*row)
        return -1;
    return (*row)->tflops[d] > 0 ? (*row)->tflops[d] : 0;
}

const vp_peak *vp_peak_table(void)
{
    return peaks;
}

static const char *const dtype_names[] = {"bf16", "fp16", "fp8"};

int vp_dtype_parse(const char *s, vp_dtype *out)
{
    for (int i = 0; i < 3; i++)
        if (strcasecmp(s, dtype_names[i]) == 0) {
            *out = (vp_dtype)i;
            return 0;
        }
    return -1;
}

const char *vp_dtype_name(vp_dtype d)
{
    return (unsigned)d < 3 ? dtype_names[d] : "?";
}
