#version 450
// smaa_weights.comp: SMAA's second step, blending weights from the shape of each edge.
//
// Rill computes the area SMAA would read from its precomputed area texture directly, for the
// orthogonal patterns: for an edge on the pixel's top side, the edge is followed left and right
// (up to `steps` pixels each way) to its ends. At each end a perpendicular edge on the pixel's
// side of the line means the boundary continues half a pixel into this pixel's row (height -0.5),
// one on the neighbour's side means it continues into the neighbour's row (+0.5), none or both
// means it ends flat (0); an end not found within the search is flat too. The true boundary is
// taken to be the line joining the two end heights across the run (for ends on the same side, a
// U, two lines meeting at height 0 in the middle of the run). The part of the line below the
// edge over this pixel's column is the share of this pixel that belongs to the neighbour's
// colour, the part above is the neighbour's share of this pixel's colour. Left edges work the
// same way along columns. Output: x = this pixel takes from the top, y = the top pixel takes from
// this one, z = this pixel takes from the left, w = the left pixel takes from this one.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D edges;
layout(set = 0, binding = 1, rgba16f) uniform writeonly image2D weights;
layout(push_constant) uniform Push {
    uvec2 size;
    uint steps; // search distance each way, pixels
    float unused;
} pc;

vec2 edge_at(ivec2 p) {
    if (p.x < 0 || p.y < 0 || p.x >= int(pc.size.x) || p.y >= int(pc.size.y))
        return vec2(0.0);
    return texelFetch(edges, p, 0).rg;
}

// Integral of the linear height h0 -> h1 over a width wd: (positive part, negative part).
vec2 piece(float h0, float h1, float wd) {
    if (h0 * h1 >= 0.0) {
        float a = 0.5 * (h0 + h1) * wd;
        return a >= 0.0 ? vec2(a, 0.0) : vec2(0.0, -a);
    }
    float t = h0 / (h0 - h1); // where the line crosses zero, 0..1
    vec2 r = vec2(0.0);
    float a0 = 0.5 * h0 * t * wd, a1 = 0.5 * h1 * (1.0 - t) * wd;
    r += a0 >= 0.0 ? vec2(a0, 0.0) : vec2(0.0, -a0);
    r += a1 >= 0.0 ? vec2(a1, 0.0) : vec2(0.0, -a1);
    return r;
}

// Height of the reconstructed boundary at x over a run [0, len] with end heights hl, hr.
float height(float x, float len, float hl, float hr) {
    if (hl * hr > 0.0) { // U shape: down to 0 at the middle and back
        float mid = 0.5 * len;
        return x < mid ? hl * (1.0 - x / mid) : hr * ((x - mid) / mid);
    }
    return mix(hl, hr, x / len);
}

// (pos, neg) area over the pixel column [x0, x0 + 1] of a run of length len.
vec2 area(float x0, float len, float hl, float hr) {
    float x1 = x0 + 1.0, mid = 0.5 * len;
    if (hl * hr > 0.0 && x0 < mid && mid < x1) {
        return piece(height(x0, len, hl, hr), 0.0, mid - x0) +
               piece(0.0, height(x1, len, hl, hr), x1 - mid);
    }
    return piece(height(x0, len, hl, hr), height(x1, len, hl, hr), 1.0);
}

// End height from the perpendicular edges on this pixel's side (own) and the neighbour's side.
float end_height(float own, float other, bool found) {
    if (!found || (own > 0.5) == (other > 0.5))
        return 0.0;
    return own > 0.5 ? -0.5 : 0.5;
}

// The weights of the edge along axis `dir` (1, 0) = top edge run along x, (0, 1) = left edge
// run along y; `across` points to the neighbour over the edge; comp picks the edge flag
// (g top, r left) and perp the flag of the perpendicular edges.
vec2 edge_weights(ivec2 p, ivec2 dir, ivec2 across, int comp, int perp) {
    int n = int(pc.steps);
    int left = 0, right = 0;
    bool found_l = false, found_r = false;
    for (int i = 1; i <= n; i++) {
        if (edge_at(p - dir * i)[comp] < 0.5) {
            found_l = true;
            break;
        }
        left = i;
    }
    for (int i = 1; i <= n; i++) {
        if (edge_at(p + dir * i)[comp] < 0.5) {
            found_r = true;
            break;
        }
        right = i;
    }
    ivec2 a = p - dir * left;        // first pixel of the run
    ivec2 b = p + dir * (right + 1); // first pixel after it
    // Perpendicular edges at the run's start (on a's leading side) and end (on b's leading side),
    // on this pixel's row/column and on the neighbour's.
    float hl = end_height(edge_at(a)[perp], edge_at(a + across)[perp], found_l);
    float hr = end_height(edge_at(b)[perp], edge_at(b + across)[perp], found_r);
    float len = float(left + right + 1);
    vec2 pn = area(float(left), len, hl, hr);
    // neg: this pixel takes from the neighbour; pos: the neighbour takes from this pixel.
    return vec2(pn.y, pn.x);
}

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(pc.size.x) || p.y >= int(pc.size.y))
        return;
    vec2 e = texelFetch(edges, p, 0).rg;
    vec4 w = vec4(0.0);
    if (e.g > 0.5)
        w.xy = edge_weights(p, ivec2(1, 0), ivec2(0, -1), 1, 0);
    if (e.r > 0.5)
        w.zw = edge_weights(p, ivec2(0, 1), ivec2(-1, 0), 0, 1);
    imageStore(weights, p, w);
}
