/* gi_hwrt.c: the Hwrt global illumination tier (hardware ray tracing with ray queries): whether
 * this renderer's device can run it, and why not. Where it cannot (no VK_KHR_acceleration_structure
 * + VK_KHR_ray_query, the null backend, RILL_NO_RAY_QUERY=1), GlobalIllumination quality Hwrt runs
 * SdfHigh and says so once (gi_settings.c). */
#include "gi_hwrt.h"

const char *rill__hwrt_unavailable(const rill_renderer *r) {
    const rill__gpu_caps *caps = rill__gpu_get_caps(r->gpu);
    if (!caps->ray_query) {
        return caps->ray_query_note;
    }
    return "the ray-traced tier is not built yet";
}
