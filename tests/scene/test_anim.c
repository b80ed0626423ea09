/* test_anim.c: AnimationPlayer on plain (non-skinned) models through the scene module's model
 * system: a door whose node turns about +Y ("open", 1 s) and slides ("slide", 2 s). The clip
 * poses the door's node entity by name and by index; a non-looping clip holds its last pose,
 * stops and sends AnimationEnded; a looping one wraps; a cross-fade between two clips moves the
 * door continuously and ends on the new clip's pose; 1000 animated instances spawned and
 * despawned leave no binding and give their memory back. The model is a .gltf written here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base64_encode.h"
#include "rill/asset.h"
#include "rill/formats/gltf.h"
#include "rill/scene/anim.h"
#include "rill/scene/model.h"

typedef struct fx {
    char dir[1024];
    rill_world *w;
    rill_vfs *vfs;
    rill_asset_server *as;
    rill_scene_models *sm;
    rill_scene_anim *an;
} fx;

/* door.gltf: node 0 "frame" with child 1 "door" (rest translation (1, 0, 0)). Clip 0 "open":
 * door rotation 0 -> 90 degrees about +Y over 1 s. Clip 1 "slide": door translation (1, 0, 0) ->
 * (3, 0, 0) over 2 s. */
static void write_door(const char *dir) {
    float b[2 + 2 + 8 + 6];
    b[0] = 0, b[1] = 1; /* open times */
    b[2] = 0, b[3] = 2; /* slide times */
    float s = sinf(0.25f * 3.14159265f), c = cosf(0.25f * 3.14159265f);
    float q[8] = {0, 0, 0, 1, 0, s, 0, c};
    memcpy(b + 4, q, sizeof(q));
    float tr[6] = {1, 0, 0, 3, 0, 0};
    memcpy(b + 12, tr, sizeof(tr));
    char b64[256], text[4096];
    rill_test_base64((const uint8_t *)b, sizeof(b), b64);
    snprintf(
        text, sizeof(text),
        "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
        "\"nodes\":[{\"name\":\"frame\",\"children\":[1]},"
        "{\"name\":\"door\",\"translation\":[1,0,0]}],"
        "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":%zu}],"
        "\"accessors\":["
        "{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
        "{\"bufferView\":0,\"byteOffset\":8,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"}"
        ","
        "{\"bufferView\":0,\"byteOffset\":16,\"componentType\":5126,\"count\":2,\"type\":\"VEC4\"},"
        "{\"bufferView\":0,\"byteOffset\":48,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}]"
        ","
        "\"animations\":["
        "{\"name\":\"open\",\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":"
        "\"rotation\"}}],"
        "\"samplers\":[{\"input\":0,\"output\":2}]},"
        "{\"name\":\"slide\",\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":"
        "\"translation\"}}],"
        "\"samplers\":[{\"input\":1,\"output\":3}]}]}",
        sizeof(b), b64, sizeof(b));
    char path[1200];
    snprintf(path, sizeof(path), "%s/door.gltf", dir);
    assert_int_equal(rill_file_write_all(path, text, strlen(text), NULL), RILL_OK);
}

static int setup(void **state) {
    fx *f = rill_calloc(1, sizeof(*f));
    const char *tmp = getenv("RILL_TEST_TMP");
    snprintf(f->dir, sizeof(f->dir), "%s/anim", tmp ? tmp : "/tmp/rill_test_anim");
    assert_int_equal(rill_dir_create_all(f->dir, NULL), RILL_OK);
    write_door(f->dir);
    rill_error err = {0};
    f->w = rill_world_create(NULL, NULL);
    f->vfs = rill_vfs_create(NULL, NULL);
    assert_int_equal(rill_vfs_mount_dir(f->vfs, f->dir, &err), RILL_OK);
    f->as = rill_asset_server_create(&(rill_asset_server_desc){.vfs = f->vfs}, NULL);
    f->sm =
        rill_scene_models_create(&(rill_scene_models_desc){.world = f->w, .assets = f->as}, &err);
    assert_non_null(f->sm);
    f->an = rill_scene_anim_create(&(rill_scene_anim_desc){.world = f->w, .models = f->sm}, &err);
    assert_non_null(f->an);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fx *f = *state;
    rill_scene_anim_destroy(f->an);
    rill_scene_models_destroy(f->sm);
    rill_asset_server_destroy(f->as);
    rill_vfs_destroy(f->vfs);
    rill_world_destroy(f->w);
    rill_free(f);
    return 0;
}

/* A door entity playing player p (spawned and flushed). */
static rill_entity door_instance(fx *f, rill_animation_player p) {
    rill_entity e = rill_world_spawn(f->w);
    rill_transform t = rill_transform_identity();
    rill_world_set_transform(f->w, e, &t);
    rill_model_ref ref = {rill_intern("door.gltf")};
    rill_world_add(f->w, e, rill_scene_models_components(f->sm)->model, &ref);
    rill_world_add(f->w, e, rill_scene_anim_component(f->an), &p);
    return e;
}

static rill_animation_player player(const char *clip, bool loop) {
    return (rill_animation_player){
        .clip = clip ? rill_intern(clip) : NULL, .playing = true, .loop = loop, .speed = 1.0f};
}

/* The door node's Transform in instance e's spawned tree. */
static const rill_transform *door_of(fx *f, rill_entity e) {
    rill_entity root = rill_scene_models_root(f->sm, e);
    rill_entity frame = rill_world_first_child(f->w, root);
    rill_entity door = rill_world_first_child(f->w, frame);
    assert_true(door != RILL_ENTITY_NULL);
    return rill_world_get(f->w, door, RILL_COMPONENT_TRANSFORM);
}

/* The door's angle about +Y in degrees (from its rotation quaternion). */
static float door_angle(const rill_transform *t) {
    return 2.0f * atan2f(t->rotation[1], t->rotation[3]) * 180.0f / 3.14159265f;
}

static void test_clip_poses_the_door(void **state) {
    fx *f = *state;
    rill_entity e = door_instance(f, player("open", false));
    rill_scene_models_flush(f->sm);
    rill_scene_anim_update(f->an, 0.0f);
    assert_float_equal(door_angle(door_of(f, e)), 0.0f, 1e-3);
    rill_scene_anim_update(f->an, 0.5f);
    assert_float_equal(door_angle(door_of(f, e)), 45.0f, 0.05);
    assert_float_equal(door_of(f, e)->translation[0], 1.0f, 1e-6); /* rest pose kept */
    rill_event ended = rill_scene_anim_ended_event(f->an);
    uint32_t before = rill_world_event_count(f->w, ended);
    /* Past the end: a non-looping clip holds 90 degrees, stops and says so once. */
    rill_scene_anim_update(f->an, 0.75f);
    assert_float_equal(door_angle(door_of(f, e)), 90.0f, 0.05);
    assert_int_equal(rill_world_event_count(f->w, ended), before + 1);
    const rill_animation_ended *ev =
        rill_world_event_at(f->w, ended, rill_world_event_count(f->w, ended) - 1);
    assert_true(ev->entity == e);
    assert_int_equal(ev->clip, 0);
    const rill_animation_player *p = rill_world_get(f->w, e, rill_scene_anim_component(f->an));
    assert_false(p->playing);
    rill_scene_anim_update(f->an, 0.5f);
    assert_int_equal(rill_world_event_count(f->w, ended), before + 1);
    /* Clip by index (1 = "slide"), looping: 2.5 s into a 2 s clip is 0.5 s, x = 1.5. */
    rill_entity g = door_instance(
        f, (rill_animation_player){.index = 1, .playing = true, .loop = true, .speed = 1.0f});
    rill_scene_models_flush(f->sm);
    rill_scene_anim_update(f->an, 2.5f);
    assert_float_equal(door_of(f, g)->translation[0], 1.5f, 1e-4);
    /* Speed -1 plays backwards: 0.5 -> wraps to 1.75 after 0.75 s. */
    rill_animation_player *pg = rill_world_get(f->w, g, rill_scene_anim_component(f->an));
    pg->speed = -1.0f;
    rill_scene_anim_update(f->an, 0.75f);
    assert_float_equal(pg->time, 1.75f, 1e-4);
    assert_float_equal(door_of(f, g)->translation[0], 2.75f, 1e-4);
}

/* Slide for 1 s, then name "open" with a 1 s fade: every 50 ms step moves the door a little (no
 * jump at the start or the end of the fade), half way it sits between both clips, and after the
 * fade it is where "open" alone puts it. */
static void test_cross_fade_is_continuous(void **state) {
    fx *f = *state;
    rill_entity e = door_instance(f, player("slide", true));
    rill_scene_models_flush(f->sm);
    rill_scene_anim_update(f->an, 1.0f);
    assert_float_equal(door_of(f, e)->translation[0], 2.0f, 1e-4);
    rill_animation_player *p = rill_world_get(f->w, e, rill_scene_anim_component(f->an));
    p->clip = rill_intern("open");
    p->fade = 1.0f;
    p->loop = false;
    rill_transform prev = *door_of(f, e);
    float max_step = 0.0f;
    for (int i = 0; i < 30; i++) {
        rill_scene_anim_update(f->an, 0.05f);
        const rill_transform *t = door_of(f, e);
        float d = fabsf(t->translation[0] - prev.translation[0]) +
                  fabsf(door_angle(t) - door_angle(&prev)) / 90.0f;
        max_step = fmaxf(max_step, d);
        if (i == 9) {
            /* 0.5 s into the fade: slide at 1.5 s (x 2.5), open at 0.5 s (45 degrees), each
             * blended half way with the other clip's rest: x 1.75, about 22.5 degrees. */
            assert_float_equal(t->translation[0], 1.75f, 0.03);
            assert_float_equal(door_angle(t), 22.5f, 1.0);
        }
        prev = *t;
    }
    print_message("largest step per 50 ms during the fade: %.3f\n", (double)max_step);
    /* Continuous motion moves at most ~0.2 per step here (x at up to 2/s plus the angle at up to
     * 90 degrees/s while the weights shift); a cut would jump x from 2 to 1 at once (1.0). */
    assert_true(max_step < 0.3f);
    /* 1.5 s after the switch: "open" alone, held at its end. */
    assert_float_equal(door_of(f, e)->translation[0], 1.0f, 1e-4);
    assert_float_equal(door_angle(door_of(f, e)), 90.0f, 0.05);
}

/* 1000 animated instances in, sampled, then out: every binding and its memory released. */
static void test_thousand_instances_stream_out(void **state) {
    fx *f = *state;
    uint64_t live0 = rill_mem_live_bytes(RILL_MEM_SCENE);
    rill_entity *es = rill_malloc(1000 * sizeof(rill_entity));
    for (int i = 0; i < 1000; i++) {
        es[i] = door_instance(f, player(i % 2 ? "open" : "slide", true));
    }
    rill_scene_models_flush(f->sm);
    rill_scene_anim_update(f->an, 0.25f);
    rill_scene_anim_stats st;
    rill_scene_anim_get_stats(f->an, &st);
    assert_int_equal(st.players, 1000);
    assert_int_equal(st.bindings, 1000);
    assert_int_equal(st.nodes_written, 1000);
    assert_float_equal(door_angle(door_of(f, es[1])), 22.5f, 0.05);
    uint64_t live1 = rill_mem_live_bytes(RILL_MEM_SCENE);
    for (int i = 0; i < 1000; i++) {
        rill_world_despawn_recursive(f->w, es[i]);
    }
    rill_scene_models_update(f->sm);
    rill_scene_anim_update(f->an, 0.25f);
    rill_scene_anim_get_stats(f->an, &st);
    assert_int_equal(st.bindings, 0);
    assert_int_equal(st.players, 0);
    uint64_t live2 = rill_mem_live_bytes(RILL_MEM_SCENE);
    print_message("scene bytes: %llu before, %llu with 1000 players, %llu after\n",
                  (unsigned long long)live0, (unsigned long long)live1, (unsigned long long)live2);
    /* Each binding held 4 arrays of 2 nodes; what stays is at most the containers' capacity. */
    assert_true(live2 < live1);
    assert_true(live1 - live2 >= 1000u * 2u * (sizeof(rill_entity) + 2u * 10u * sizeof(float)));
    rill_free(es);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_clip_poses_the_door, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cross_fade_is_continuous, setup, teardown),
        cmocka_unit_test_setup_teardown(test_thousand_instances_stream_out, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
