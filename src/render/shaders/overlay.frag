#version 450
// overlay.frag: flat-colored text and its backdrop, alpha-blended over the display-encoded image.
layout(location = 0) in vec4 in_color;
layout(location = 0) out vec4 out_color;

void main() {
    out_color = in_color;
}
