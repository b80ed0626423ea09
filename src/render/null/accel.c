/* accel.c: the null backend's acceleration structures. The null device, like a Vulkan device
 * without VK_KHR_acceleration_structure, reports caps.ray_query = false: creating a structure
 * fails with RILL_ERR_UNSUPPORTED and recording a build is a broken rule (the renderer checks the
 * caps first, gi_hwrt.c). */
#include "null_internal.h"

struct rill__accel {
    null_obj o;
};

static rill__accel *unsupported(const char *label, rill_error *err) {
    rill_error_set(err, RILL_ERR_UNSUPPORTED,
                   "render: acceleration structure '%s': the null backend has no ray tracing",
                   label ? label : "?");
    return NULL;
}

rill__accel *rill__blas_create(rill__gpu *gpu, const rill__blas_geom *g, const char *label,
                               rill__accel_sizes *out_sizes, rill_error *err) {
    NULL_GUARD(gpu);
    (void)g;
    (void)out_sizes;
    return unsupported(label, err);
}

rill__accel *rill__tlas_create(rill__gpu *gpu, uint32_t max_instances, const char *label,
                               rill__accel_sizes *out_sizes, rill_error *err) {
    NULL_GUARD(gpu);
    (void)max_instances;
    (void)out_sizes;
    return unsupported(label, err);
}

uint64_t rill__buf_address(const rill__buf *buf) {
    (void)buf;
    return 0; /* no device addresses without ray queries */
}

uint64_t rill__accel_address(const rill__accel *a) {
    (void)a;
    return 0;
}

void rill__accel_destroy(rill__gpu *gpu, rill__accel *a) {
    NULL_GUARD(gpu);
    (void)a; /* none is ever made */
}

rill_result rill__cmd_build_blas(rill__cmd *cmd, rill__accel *blas, const rill__blas_geom *g,
                                 rill_error *err) {
    (void)blas;
    (void)g;
    rill__null_complain(cmd->gpu, "acceleration structure build without ray tracing");
    return rill_error_set(err, RILL_ERR_UNSUPPORTED,
                          "render: the null backend builds no acceleration structures");
}

void rill__cmd_build_tlas(rill__cmd *cmd, rill__accel *tlas, const rill__accel_instance *inst,
                          uint32_t count) {
    (void)tlas;
    (void)inst;
    (void)count;
    rill__null_complain(cmd->gpu, "acceleration structure build without ray tracing");
}
