/* batch_check.c: a collected member read again right before its build step. A cell is collected
 * in one extract and built over several, so a member can move, change channels or primitive, get
 * a mode of its own or be despawned in between; no observer follows it while it is only collected,
 * so its step reads what it is now and leaves it out when it changed (it then draws alone through
 * the walk, as any entity that is no member). */
#include "batch_internal.h"

#include "model_assets.h"
#include "render_internal.h"

#include <string.h>

/* Whether the world still holds k's entity as collected: alive, its record in cell ci and not
 * moved, the same ModelMesh, SceneChannels mask and GlobalTransform matrix. */
static bool unchanged(const rill__batcher *bt, uint32_t ci, const collected *k) {
    rill_world *w = bt->world;
    const member_info *mi = &k->info;
    const member_rec *rc = rill__batch_rec_if(bt, mi->e);
    if (!rc || rc->cell != ci || rc->moved || !rill_world_is_alive(w, mi->e)) {
        return false;
    }
    const rill_model_mesh *mm = rill_world_get(w, mi->e, bt->mm_comp);
    const rill_scene_channels *sc = rill_world_get(w, mi->e, bt->sc_comp);
    const rill_global_transform *xf =
        rill_world_get(w, mi->e, rill_world_builtin(w)->global_transform);
    return mm && mm->asset == mi->mm.asset && mm->mesh == mi->mm.mesh &&
           mm->primitive == mi->mm.primitive && (sc ? sc->mask : 0u) == mi->mask && xf &&
           memcmp(xf->m, mi->m, sizeof(mi->m)) == 0;
}

bool rill__batch_check(rill__batcher *bt, uint32_t ci, collected *k) {
    bool same = unchanged(bt, ci, k);
    const rill_render_mode_component *rm =
        same ? rill_world_get(bt->world, k->info.e, bt->rm_comp) : NULL;
    /* Its range: on while it draws as a plain NORMAL entity, parked (off) while its LOD level is
     * switched off or crossfading; a wireframe or ghost mode of its own is a change. */
    bool on = !rm || (rm->mode == RILL_RENDER_MODE_NORMAL && rm->lod_fade == 0.0f);
    bool parked = rm && (rm->mode == RILL_RENDER_MODE_HIDDEN ||
                         (rm->mode == RILL_RENDER_MODE_NORMAL && rm->lod_fade != 0.0f));
    const rill_gltf_primitive *p =
        same && (on || parked) ? rill__render_assets_primitive(bt->ra, &k->info.mm) : NULL;
    if (!p) {
        bt->stats.members_changed++;
        bt->cells.data[ci].redo = true;
        return false;
    }
    k->prim = p; /* (its asset may have been reloaded since the build started) */
    k->info.on = on;
    return true;
}
