#version 450
// gpu_cull.comp: GPU-driven culling, appends counted one invocation at a time (gpu_cull.glsl).
#include "gpu_cull.glsl"
