/* edge_detect: the EdgeDetect effect plugin, Sobel edges of the colour: a line drawing on paper, or
 * lines over the image (shader: edge_detect.glsl next to the library). */
#include "rill/plugin.h"

static const rill_plugin_field fields[] = {
    RILL_PLUGIN_COLOR("line_color", 0, 0.05f, 0.05f, 0.05f, 1.0f, "line colour"),
    RILL_PLUGIN_COLOR("paper", 16, 1.0f, 1.0f, 1.0f, 1.0f, "background colour"),
    RILL_PLUGIN_F32("threshold", 32, 0.08f, 0.0f, 2.0f, "gradient below which nothing is drawn"),
    RILL_PLUGIN_F32("paper_amount", 36, 1.0f, 0.0f, 1.0f,
                    "1 = lines on paper, 0 = lines over the image"),
};

RILL_PLUGIN_SINGLE_EFFECT("edge_detect", "1.0", "EdgeDetect", "edge_detect.glsl", 48, fields,
                          RILL_PLUGIN_PHASE_LDR_POST, 420)
