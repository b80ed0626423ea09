// post_depth.glsl: the depth buffer as distance and the circle of confusion of depth of field.
// Depth is [0, 1] (1 = far, the sky); near, far and ortho come from the camera.

float post_distance(float d, float near, float far, float ortho) {
    if (ortho == 1.0)
        return near + d * (far - near);
    return near * far / max(far - d * (far - near), 1e-6);
}

// Signed circle of confusion, pixels of diameter (negative in front of the focal plane): scale is
// F^2 / (N (focus - F)) / sensor_height * image height (post_dof.c).
float post_coc(float d, float near, float far, float ortho, float scale, float focus, float max_coc) {
    float z = post_distance(d, near, far, ortho);
    return clamp(scale * (z - focus) / max(z, 1e-6), -max_coc, max_coc);
}
