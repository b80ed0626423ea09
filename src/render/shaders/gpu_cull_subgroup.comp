#version 450
// gpu_cull_subgroup.comp: GPU-driven culling, appends counted once per group and subgroup
// (gpu_cull.glsl); created where the device has subgroup ballot and arithmetic (frame_pipelines.c).
#define GPU_CULL_SUBGROUP 1
#include "gpu_cull.glsl"
