#version 450
// decal_atlas_grow.comp: one level of the decal atlas (post_decal_atlas.c) copied, texel for
// texel, from the atlas it replaces (fewer layers) into the same layers of the new one, when the
// maps in view need more room; one invocation a texel, z the layer.
layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0) uniform sampler2DArray old_atlas;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2DArray dst; // one level

layout(push_constant) uniform Push {
    int level;
} pc;

void main() {
    ivec3 p = ivec3(gl_GlobalInvocationID);
    ivec2 size = textureSize(old_atlas, pc.level).xy;
    if (p.x >= size.x || p.y >= size.y)
        return;
    imageStore(dst, p, texelFetch(old_atlas, p, pc.level));
}
