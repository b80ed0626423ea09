/* demo.h: what the `rill demo` world brings to the other tools: its placeholder components and
 * their drawables (demo_world.c) and its generated model files (demo_assets.c). `rill scene`,
 * `rill fly` and the content hooks use these without depending on the demo command (cmd_demo.c). */
#ifndef RILL_TOOLS_DEMO_H
#define RILL_TOOLS_DEMO_H

#include <stdint.h>

#include "rill/render.h"
#include "rill/world.h"

/* demo_assets.c: writes the demo city's textured .glb models into models_dir and their PNG
 * textures into models_dir/textures. Deterministic. */
/* texture_size: the side of every texture (1024 for the real demo, 128 for small test worlds). */
/* styles: how many sets of facade, roof and paving images (and of the buildings and ground tile
 * that name them) to write; style 0 keeps the plain names, style N adds "_sN". */
/* jobs: the textures are encoded on its workers (NULL: one after another); the bytes are the same.
 */
rill_result rill_demo_write_assets(const char *models_dir, uint32_t texture_size, uint32_t styles,
                                   rill_jobs *jobs, rill_error *err);

/* Registers the components the demo world uses (DemoBuilding, DemoProp, DemoLight) in world, so
 * that `rill scene check/load` know them as well as `rill demo` does. Idempotent. */
void rill_demo_register_components(rill_world *world);

/* Maps the demo components of a loaded world to drawables: DemoBuilding -> a box the size of its
 * footprint and floors, DemoProp -> a box or sphere of its size, DemoLight -> PointLight (the one
 * with range 0 becomes the DirectionalLight sun). Creates the meshes and materials in r. Returns
 * the number of drawable instances added, or -1 with err set. */
int64_t rill_demo_make_drawables(rill_renderer *r, rill_world *world, rill_error *err);

/* demo_scripts.c: the city's scripted life. The main scene's layout: `side` x `side` grid cells of
 * 200 m, the first `districts` of them holding a district; the landmarks stand around the street
 * crossing at (offset, offset). */
typedef struct rill_demo_layout {
    uint32_t side, districts;
    float offset;
} rill_demo_layout;
/* Writes the scripts (.lua files in project_dir/scripts, each checked to compile) and adds their
 * Script entities to the main scene being built in w: the day/night cycle on the Sun, cars driving
 * around blocks near the tower, the city gate's doors opening as the camera nears (models/door.glb)
 * and a loader that adds an extra district on the L key. Adds the entities it spawned to
 * *out_count. */
rill_result rill_demo_add_life(rill_world *w, const char *project_dir, const rill_demo_layout *l,
                               uint32_t *out_count, rill_error *err);

#endif /* RILL_TOOLS_DEMO_H */
