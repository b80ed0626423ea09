/* texture_users.h: the texture streaming users of the render asset cache (texture_users.c): one
 * per drawn ModelMesh entity with a streamed material, its world box kept up to date from what
 * changes (ModelMesh and RenderMode writes, moved transforms, uploads), not by walking every
 * ModelMesh entity. */
#ifndef RILL_RENDER_TEXTURE_USERS_H
#define RILL_RENDER_TEXTURE_USERS_H

#include "rill/render.h"
#include "rill/stream/textures.h"

typedef struct rill__tex_users rill__tex_users;

/* Users of ra's models, fed to ts. resource is the world resource holding ra (the RenderMode
 * observers find the cache through it). NULL when out of memory. */
rill__tex_users *rill__tex_users_create(rill_render_assets *ra, rill_renderer *r, rill_world *world,
                                        const rill_model_components *mc, uint32_t resource,
                                        rill_texstream *ts);
/* Frees the records (the texstream it fed is destroyed with the cache). NULL: no-op. */
void rill__tex_users_destroy(rill__tex_users *u);
/* A ModelMesh was added to e (or replaced): e is looked at in the next update. */
void rill__tex_users_mesh_added(rill__tex_users *u, rill_entity e);
/* e's ModelMesh goes: its user goes now. */
void rill__tex_users_mesh_removed(rill__tex_users *u, rill_entity e);
/* Once per frame after the transforms: the entities that changed are measured, in a slice of at
 * most budget_ns of main-thread time (at least 512 entities, so it always advances). */
void rill__tex_users_update(rill__tex_users *u, uint64_t budget_ns);
/* Entities waiting to be measured (0 once every user is up to date). */
uint32_t rill__tex_users_pending(const rill__tex_users *u);
/* Users now (for tests and stats). */
uint32_t rill__tex_users_count(const rill__tex_users *u);

#endif
