/* rill/render.h: the Vulkan 1.3 renderer.
 *
 * ON USE
 *   rill_renderer_create opens a device (headless, or on a GLFW window) and builds the pipelines.
 *   Create meshes, textures and materials (handles; the data is copied and uploaded through a
 *   staging ring with a per-frame byte budget, so a resource may take a frame or more to become
 *   drawable; until then it draws nothing). Each frame, fill a rill_render_snapshot (by hand, or
 *   from a world with rill_render_extract) and call rill_renderer_render. Headless renderers read
 *   the result back with rill_renderer_read_pixels or rill_renderer_write_png.
 *
 * ON THE FRAME
 *   shadows (directional light, cascaded) -> prepass (depth, normals, motion vectors) -> opaque
 *   (Cook-Torrance metallic-roughness, clustered point/spot lights, 16-bit float HDR) ->
 *   transparent (sorted back to front, alpha blended) -> wireframe (mesh edge buffers as line
 *   lists; polygon-mode lines for meshes without one) ->
 *   end_main_pass -> tonemapping (compute; ACES fitted or AgX, with exposure, sRGB-encoded 8-bit
 *   output) -> end_main_pass_post_processing -> readback or present.
 *   rill_renderer_desc.setup_graph lets a caller add passes between the anchors every frame
 *   (see rill/render/graph.h); rill_render_fx runs user compute shaders there.
 *
 * ON WINDOWS
 *   Pass a GLFW window created with GLFW_CLIENT_API = GLFW_NO_API after glfwInit (the caller owns
 *   GLFW); the swapchain follows the framebuffer size. vsync true = FIFO, false = MAILBOX, else
 *   IMMEDIATE.
 *
 * ON ERRORS
 *   Every Vulkan result is checked; failures come back as rill_result with a message in the
 *   rill_error. With validation on (debug builds, RILL_VALIDATION=1, or desc.validation = 1)
 *   every validation warning or error is logged and counted
 *   (rill_render_stats.validation_messages). RILL_SYNC_VALIDATION=1 adds synchronization checks.
 *
 * ON DEVICES
 *   The device is chosen discrete > integrated > virtual > CPU among those with Vulkan 1.3,
 *   dynamicRendering, synchronization2 and timelineSemaphore. desc.device_name or the environment
 *   variable RILL_DEVICE (a case-insensitive substring of the device name) overrides the choice.
 *
 * ON PARTS
 *   This header gathers the renderer's public parts; include it, or only the part needed:
 *   rill/render/renderer.h   the renderer: description, creation, run-time settings
 *   rill/render/resources.h  meshes, textures, materials
 *   rill/render/snapshot.h   the snapshot (views, instances, lights, sky) and rendering a frame
 *   rill/render/fx.h         user compute effects
 *   rill/render/model.h      glTF models as renderer resources
 *   rill/render/stats.h      statistics, overlay text, frame capture
 *   rill/render/extract.h    render components and rill_render_extract
 *   rill/render/assets.h     the render asset cache, texture streaming, static batching
 *   rill/render/terrain.h    terrain chunks
 *   Effects, environment, reflections, GI and the rest have their own headers under rill/render/.
 */
#ifndef RILL_RENDER_H
#define RILL_RENDER_H

#include "rill/base.h"
#include "rill/channels.h"
#include "rill/formats/gltf.h"
#include "rill/formats/rmip.h"
#include "rill/render/assets.h"
#include "rill/render/extract.h"
#include "rill/render/fx.h"
#include "rill/render/graph.h"
#include "rill/render/model.h"
#include "rill/render/renderer.h"
#include "rill/render/resources.h"
#include "rill/render/snapshot.h"
#include "rill/render/stats.h"
#include "rill/render/terrain.h"
#include "rill/scene/model.h"
#include "rill/stream/textures.h"
#include "rill/world.h"

#endif /* RILL_RENDER_H */
