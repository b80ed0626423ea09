// surface.glsl: the surface normal every mesh fragment shader starts from (include after
// common.glsl; fragment stage only).

// The normal facing the viewer: the interpolated vertex normal (flipped on back faces), or,
// where it has no length (a zero normal in the mesh, or opposite normals interpolated across a
// face), the face's own normal from screen-space derivatives of the position. normalize() of a
// zero vector is NaN, which would shade the face black and spread through TAA and bloom. The
// derivatives are taken before any branch, where they are defined.
vec3 surface_normal(vec3 normal, vec3 world) {
    vec3 face = cross(dFdx(world), dFdy(world));
    if (dot(normal, normal) > 1e-12)
        return normalize(gl_FrontFacing ? normal : -normal);
    if (dot(face, frame.camera_pos.xyz - world) < 0.0)
        face = -face;
    return dot(face, face) > 1e-24 ? normalize(face) : normalize(frame.camera_pos.xyz - world);
}
