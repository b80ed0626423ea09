/* test_script.c: gameplay scripts through the app, as a project runs them: Script components on
 * entities, files read through the VFS from the project folder, frames run by rill_app_frame
 * (deterministic). Lifecycle and order, properties, every rill.* call, user components through
 * reflection, writes seen by C systems the same frame, load_scene progress and its loaded event,
 * the sandbox's refusals (with the engine still running), syntax errors keeping the last good
 * script, and hot reload keeping self. */
#include "rill_test.h"

#include "rill/app.h"
#include "rill/channels.h"

#include <math.h>
#include <sys/stat.h>

/* A user component the scripts read and write by name. */
typedef struct counter {
    int32_t count;
    float value;
    const char *text;
    float dir[3];
    bool flag;
    float uv[2];
    float box[4];
    float tint[4];
} counter;

typedef struct fixture {
    char dir[512];
    rill_app *app;
    rill_world *w;
    rill_app_physics *phys;
    rill_app_scripts *as;
    rill_scripts *s;
    rill_component counter;
    rill_component script;
    rill_test_log log;
} fixture;

static void write_script(fixture *f, const char *rel, const char *text) {
    rill_test_write_file(f->dir, rel, text, strlen(text));
}

/* Rewrites a file and moves its mtime on by a second, so a reload check sees the change however
 * coarse the file system's clock is. */
static void rewrite_script(fixture *f, const char *rel, const char *text) {
    char path[1024];
    rill_test_path(path, sizeof(path), f->dir, rel);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    write_script(f, rel, text);
    struct timespec ts[2] = {st.st_atim, st.st_mtim};
    ts[1].tv_sec += 1;
    assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static void open_fixture(fixture *f, const char *name) {
    memset(f, 0, sizeof(*f));
    rill_test_tmpdir(f->dir, sizeof(f->dir), name);
    rill_error err = {0};
    f->app = rill_app_create(&(rill_app_desc){.deterministic = true, .root = f->dir}, &err);
    assert_non_null(f->app);
    f->w = rill_app_world(f->app);
    assert_int_equal(rill_app_register_components(f->w, NULL, NULL, &err), RILL_OK);
    static const rill_field fields[] = {
        RILL_FIELD(counter, count, I32),
        RILL_FIELD_WITH(counter, value, F32, RILL_FIELD_RANGE(-100.0, 100.0)),
        RILL_FIELD(counter, text, STRING),
        RILL_FIELD(counter, dir, VEC3),
        RILL_FIELD(counter, flag, BOOL),
        RILL_FIELD(counter, uv, VEC2),
        RILL_FIELD(counter, box, VEC4),
        RILL_FIELD(counter, tint, COLOR),
    };
    f->counter =
        rill_world_register_component(f->w, &(rill_type_desc){.name = "Counter",
                                                              RILL_TYPE_LAYOUT(counter),
                                                              .fields = fields,
                                                              .field_count = RILL_COUNTOF(fields)});
    assert_true(f->counter.id != 0);
    f->phys = rill_app_enable_physics(f->app, NULL, &err);
    assert_non_null(f->phys);
    f->as = rill_app_enable_scripts(
        f->app, &(rill_scripts_desc){.physics = rill_app_physics_world(f->phys)}, &err);
    assert_non_null(f->as);
    f->s = rill_app_scripts_system(f->as);
    f->script = rill_world_find_component(f->w, "Script");
    assert_true(f->script.id != 0);
    rill_test_log_begin(&f->log);
}

static void close_fixture(fixture *f) {
    rill_test_log_end(&f->log);
    rill_app_disable_scripts(f->as);
    rill_app_disable_physics(f->phys);
    rill_app_destroy(f->app);
    rill_test_tmpdir_remove(f->dir);
}

static rill_entity spawn_scripted(fixture *f, const char *name, const char *path,
                                  const char *props) {
    rill_entity e = rill_world_spawn(f->w);
    rill_world_set_name(f->w, e, name);
    rill_transform t = rill_transform_identity();
    rill_world_set_transform(f->w, e, &t);
    rill_world_add(f->w, e, f->counter, NULL);
    rill_script sc = {rill_intern(path), props ? rill_intern(props) : NULL};
    assert_non_null(rill_world_add(f->w, e, f->script, &sc));
    return e;
}

static counter *get_counter(fixture *f, rill_entity e) {
    counter *c = rill_world_get(f->w, e, f->counter);
    assert_non_null(c);
    return c;
}

static void frames(fixture *f, int n) {
    for (int i = 0; i < n; i++) {
        rill_app_frame(f->app);
    }
}

/* >>lifecycle ---------------------------------------------------------------------------------- */

/* init once, update every frame, fixed_update every fixed step, final when the component goes;
 * instances run in the order their Scripts appeared. */
static void test_lifecycle(void **state) {
    (void)state;
    fixture f;
    open_fixture(&f, "script_lifecycle");
    write_script(&f, "scripts/life.lua",
                 "properties = { step = 1, label = 'x', dir = vec3(1, 0, 0) }\n"
                 "order = order or {}\n"
                 "function init(self) self.inits = (self.inits or 0) + 1\n"
                 "  self.dir.x = self.dir.x + self.step\n" /* each instance's own copy */
                 "  self.entity.Counter.text = self.label end\n"
                 "function update(self, dt)\n"
                 "  local c = self.entity.Counter\n"
                 "  c.dir = self.dir\n"
                 "  c.count = c.count + self.step\n"
                 "  order[#order + 1] = self.entity.name\n"
                 "  c.flag = (#order % 2) == 1 end\n"
                 "function fixed_update(self, dt) local c = self.entity.Counter\n"
                 "  c.value = c.value + dt end\n"
                 "function final(self) rill.find('witness').Counter.count = 99 end\n");
    rill_entity witness = rill_world_spawn(f.w);
    rill_world_set_name(f.w, witness, "witness");
    rill_world_add(f.w, witness, f.counter, NULL);
    rill_entity a = spawn_scripted(&f, "a", "scripts/life.lua", NULL);
    rill_entity b = spawn_scripted(&f, "b", "scripts/life.lua", "step = 10, label = 'bee'");
    frames(&f, 5);
    assert_int_equal(get_counter(&f, a)->count, 5);
    assert_int_equal(get_counter(&f, b)->count, 50);
    assert_string_equal(get_counter(&f, a)->text, "x");
    assert_string_equal(get_counter(&f, b)->text, "bee");
    /* The vec3 default is copied per instance: a's 1 + 1 and b's 1 + 10, not a shared 12. */
    assert_true(get_counter(&f, a)->dir[0] == 2.0f);
    assert_true(get_counter(&f, b)->dir[0] == 11.0f);
    /* Deterministic: one fixed step of 1/60 s per frame; the first frame's step ran before init
     * (fixed_update comes before update in a frame). */
    assert_true(fabsf(get_counter(&f, a)->value - 4.0f / 60.0f) < 1e-4f);
    /* a runs before b every frame: the odd entries of the shared order list are a's. */
    assert_true(get_counter(&f, a)->flag);
    assert_false(get_counter(&f, b)->flag);
    rill_world_remove(f.w, a, f.script);
    frames(&f, 1);
    assert_int_equal(get_counter(&f, witness)->count, 99);
    assert_int_equal(get_counter(&f, a)->count, 5);
    assert_int_equal(get_counter(&f, b)->count, 60);
    assert_false(rill_scripts_running(f.s, a));
    assert_true(rill_scripts_running(f.s, b));
    close_fixture(&f);
}

/* A C system in update (after the scripts) and the transform propagation see a script's write of
 * this very frame. */
typedef struct seen {
    rill_entity e;
    float x[8];
    int n;
} seen;

static void sys_read(rill_app *app, void *user) {
    seen *s = user;
    const rill_transform *t = rill_world_get(rill_app_world(app), s->e, RILL_COMPONENT_TRANSFORM);
    if (s->n < 8) {
        s->x[s->n++] = t->translation[0];
    }
}

static void test_writes_seen_same_frame(void **state) {
    (void)state;
    fixture f;
    open_fixture(&f, "script_same_frame");
    write_script(&f, "mover.lua",
                 "function update(self, dt)\n"
                 "  local t = self.entity.Transform\n"
                 "  t.translation = vec3(rill.frame(), 2, 3) end\n");
    seen s = {.e = spawn_scripted(&f, "m", "mover.lua", NULL)};
    rill_app_add_system(
        f.app, &(rill_system_desc){
                   .name = "reader", .stage = RILL_STAGE_UPDATE, .fn = sys_read, .user = &s});
    frames(&f, 3);
    assert_int_equal(s.n, 3);
    for (int i = 0; i < 3; i++) {
        assert_true(s.x[i] == (float)(i + 1));
    }
    const float *m = rill_world_global_matrix(f.w, s.e);
    assert_true(m[12] == 3.0f && m[13] == 2.0f && m[14] == 3.0f);
    close_fixture(&f);
}

/* >>the API ------------------------------------------------------------------------------------ */

/* Every rill.* call from a script; each check writes its result into Counter.count bits, so the
 * test sees which passed (and the script's own asserts fail it loudly). */
static void test_api(void **state) {
    (void)state;
    fixture f;
    open_fixture(&f, "script_api");
    /* A ground box for the raycast; a game camera. */
    rill_physics_components pc = rill_physics_register(f.w);
    rill_entity ground = rill_world_spawn(f.w);
    rill_world_set_name(f.w, ground, "ground");
    rill_transform t = rill_transform_identity();
    rill_world_set_transform(f.w, ground, &t);
    rill_collider col;
    rill_type_apply_defaults(rill_world_component_type(f.w, pc.collider), &col);
    col.half_extents[0] = col.half_extents[1] = col.half_extents[2] = 1.0f;
    rill_world_add(f.w, ground, pc.collider, &col);
    rill_entity cam = rill_world_spawn(f.w);
    rill_world_set_name(f.w, cam, "cam1");
    rill_world_add(f.w, cam, RILL_COMPONENT_CAMERA, NULL);
    rill_entity cam2 = rill_world_spawn(f.w);
    rill_world_set_name(f.w, cam2, "cam2");
    rill_camera c2 = {0};
    rill_type_apply_defaults(rill_world_component_type(f.w, RILL_COMPONENT_CAMERA), &c2);
    c2.active = false;
    rill_world_add(f.w, cam2, RILL_COMPONENT_CAMERA, &c2);
    write_script(&f, "lib/util.lua",
                 "local M = {} function M.twice(x) return 2 * x end return M\n");
    write_script(
        &f, "api.lua",
        "local util = require('lib.util')\n"
        "local function check(c, bit) if c then self_bits = (self_bits or 0) | (1 << bit) end "
        "end\n"
        "function init(self)\n"
        "  rill.log('hello', 42)\n" /* line 4 */
        "  check(util.twice(21) == 42, 0)\n"
        "  local e = rill.spawn{name = 'spawned', Transform = {translation = vec3(1, 2, 3)},\n"
        "                       Counter = {count = 7, text = 'hi', dir = {1, 0, 0}}}\n"
        "  check(rill.find('spawned') == e and e.Counter.count == 7 and e.Counter.text == 'hi',"
        " 1)\n"
        "  check(e.Transform.translation == vec3(1, 2, 3) and e.Counter.dir.x == 1, 2)\n"
        "  e.Counter.value = 1000\n" /* clamped to the field's range */
        "  check(e.Counter.value == 100, 3)\n"
        "  check(e:has('Counter') and e:remove('Counter') and not e:has('Counter')"
        " and e.Counter == nil, 4)\n"
        "  local n = 0 for q in rill.query('Counter', 'Script') do n = n + 1 end\n"
        "  check(n == 1, 5)\n"
        "  local child = rill.spawn('child') child:set_parent(e)\n"
        "  check(child:parent() == e and #e:children() == 1, 6)\n"
        "  e:despawn() check(not e:alive() and not child:alive(), 7)\n"
        "  local q = quat.axis_angle(vec3(0, 1, 0), math.pi / 2)\n"
        "  local v = q * vec3(1, 0, 0)\n"
        "  check(math.abs(v.x) < 1e-6 and math.abs(v.z + 1) < 1e-6, 8)\n"
        "  check((vec3(1, 2, 3) + vec3(1, 1, 1)):dot(vec3(1, 0, 0)) == 2 and\n"
        "    vec3(3, 4, 0):length() == 5 and vec3(1, 0, 0):cross(vec3(0, 1, 0)) == vec3(0, 0, 1),"
        " 9)\n"
        "  local hit = rill.raycast(vec3(0, 10, 0), vec3(0, -1, 0), 100)\n"
        "  check(hit and hit.entity == rill.find('ground') and math.abs(hit.distance - 9) < 1e-3"
        " and hit.normal.y > 0.99, 10)\n"
        "  check(rill.raycast(vec3(50, 10, 0), vec3(0, -1, 0), 100) == nil, 11)\n"
        "  check(rill.camera() == rill.find('cam1'), 12)\n"
        "  rill.set_camera(rill.find('cam2'))\n"
        "  check(rill.camera() == rill.find('cam2'), 13)\n"
        "  rill.set_channel_mode('ghost', 'wireframe')\n"
        "  check(rill.channel_mode('ghost') == 'wireframe', 14)\n"
        "  self.timer_runs = 0\n"
        "  rill.after(0.04, function() self.after_ran = rill.frame() end)\n"
        "  self.every = rill.every(0.02, function() self.timer_runs = self.timer_runs + 1 end)\n"
        "  rill.emit('hello', {n = 5}, self.entity)\n"
        "  rill.emit('broadcast')\n"
        "  check(not rill.key_down('w') and not rill.mouse_down('left'), 15)\n"
        "  local ok, err = pcall(function() return self.entity.NoSuchThing end)\n"
        "  check(not ok and err:find('api.lua:37: unknown component .NoSuchThing.') ~= nil, 16)\n"
        "  ok, err = pcall(function() self.entity.Counter.nope = 1 end)\n"
        "  check(not ok and err:find('api.lua:39: Counter has no field .nope.') ~= nil, 17)\n"
        "  ok, err = pcall(function() self.entity.Counter.count = 'many' end)\n"
        "  check(not ok and err:find('api.lua:41:') ~= nil, 18)\n"
        "  check(#rill.components() > 10, 19)\n"
        "  self.events = {}\n"
        "end\n"
        "function on_event(self, ev) self.events[#self.events + 1] = ev.type\n"
        "  if ev.type == 'hello' then self.hello_n = ev.data.n end\n"
        "  if ev.type == 'channel_changed' then self.channel_event = ev.mode end end\n"
        "function update(self, dt)\n"
        "  if rill.frame() == 6 then rill.cancel(self.every) self.runs_at_cancel = "
        "self.timer_runs end\n"
        "  if rill.frame() == 10 then\n"
        "    check(self.hello_n == 5 and self.channel_event == 'wireframe', 20)\n"
        "    check(self.after_ran == 4, 21)\n" /* due at 1/60 + 0.04 s: frame 4 (t = 4/60) */
        "    check(self.runs_at_cancel >= 2 and self.timer_runs == self.runs_at_cancel, 22)\n"
        "    check(rill.time() > 0.16 and rill.time() < 0.17, 23)\n"
        "    self.entity.Counter.count = self_bits\n"
        "  end\n"
        "end\n");
    rill_entity e = spawn_scripted(&f, "api", "api.lua", NULL);
    frames(&f, 10);
    int32_t bits = get_counter(&f, e)->count;
    for (int b = 0; b <= 23; b++) {
        if (!(bits & (1 << b))) {
            fail_msg("api check %d failed (bits 0x%x); last log: %s", b, (unsigned)bits,
                     f.log.last_msg);
        }
    }
    assert_true(rill_scripts_running(f.s, e));
    close_fixture(&f);
}

/* What the lookup caches (component names, field tables, one proxy per entity and component,
 * a small-block allocator) must not change: a vec3 read is a copy, a proxy kept across a remove
 * and an add reads the new component, each entity's proxy is its own, field names are per type,
 * and bad keys still fail with the script's line. */
static void test_cached_lookups(void **state) {
    (void)state;
    fixture f;
    open_fixture(&f, "script_cached");
    write_script(
        &f, "cache.lua",
        "local function check(c, bit) if c then self_bits = (self_bits or 0) | (1 << bit) end "
        "end\n"
        "function update(self, dt)\n"
        "  if rill.frame() ~= 2 then return end\n"
        "  local e = self.entity\n"
        "  local t = e.Transform\n"
        "  local a = t.translation\n"
        "  t.translation = vec3(5, 6, 7)\n"
        "  local b = t.translation\n"
        "  check(a.x == 0 and b.x == 5, 0)\n"
        "  b.x = 9\n"
        "  check(t.translation.x == 5 and e.Transform.translation.x == 5, 1)\n"
        "  local c = e.Counter\n"
        "  e:remove('Counter')\n"
        "  check(e.Counter == nil, 2)\n"
        "  local ok, err = pcall(function() return c.count end)\n"
        "  check(not ok and err:find('no longer has Counter') ~= nil, 3)\n"
        "  e:add('Counter', {count = 4})\n"
        "  check(c.count == 4 and e.Counter.count == 4, 4)\n"
        "  local o = rill.spawn{name = 'other', Counter = {count = 11}}\n"
        "  check(o.Counter.count == 11 and e.Counter.count == 4, 5)\n"
        "  rill.find('other').Counter.count = 12\n"
        "  check(o.Counter.count == 12 and e.Counter.count == 4, 6)\n"
        "  ok, err = pcall(function() return e.Counter.translation end)\n" /* line 23 */
        "  check(not ok and err:find(\"cache.lua:23: Counter has no field 'translation'\") ~= nil,"
        " 7)\n"
        "  ok, err = pcall(function() return e.Counter[1] end)\n"
        "  check(not ok and err:find('cache.lua:25:') ~= nil, 8)\n"
        "  check(rill.spawn('bare').Counter == nil and rill.find('bare').Transform == nil, 9)\n"
        "  ok, err = pcall(function() return e.Countr end)\n"
        "  check(not ok and err:find(\"cache.lua:28: unknown component 'Countr'\") ~= nil, 10)\n"
        "  check(e:has('Counter') and e.name == 'cached', 11)\n"
        "  e.Counter.count = self_bits\n"
        "end\n");
    rill_entity e = spawn_scripted(&f, "cached", "cache.lua", NULL);
    frames(&f, 3);
    int32_t bits = get_counter(&f, e)->count;
    for (int b = 0; b <= 11; b++) {
        if (!(bits & (1 << b))) {
            fail_msg("cache check %d failed (bits 0x%x); last log: %s", b, (unsigned)bits,
                     f.log.last_msg);
        }
    }
    const rill_transform *t = rill_world_get(f.w, e, RILL_COMPONENT_TRANSFORM);
    assert_true(t->translation[0] == 5.0f && t->translation[1] == 6.0f);
    assert_true(rill_scripts_running(f.s, e));
    close_fixture(&f);
}

/* The vec3 type (a userdata of three doubles): a read of a vec3 field is a fresh copy, the
 * arithmetic and methods give the right numbers, tables are taken where a vec3 is, and bad field
 * names, bad lane values and bad operands are errors naming the script line. */
static void test_vec3_type(void **state) {
    (void)state;
    fixture f;
    open_fixture(&f, "script_vec3");
    write_script(
        &f, "vec.lua",
        "local function check(c, bit) if c then self_bits = (self_bits or 0) | (1 << bit) end "
        "end\n"
        "local function near(a, b) return math.abs(a - b) < 1e-9 end\n"
        "function update(self, dt)\n"
        "  if rill.frame() ~= 2 then return end\n"
        "  local t = self.entity.Transform\n"
        "  t.translation = vec3(1, 2, 3)\n"
        "  local p, q = t.translation, t.translation\n"
        "  check(type(p) == 'userdata' and p == q and not rawequal(p, q), 0)\n"
        "  p.y = 20\n"
        "  check(q.y == 2 and t.translation.y == 2, 1)\n"
        "  t.translation = p\n"
        "  check(t.translation == vec3(1, 20, 3) and q.y == 2, 2)\n"
        "  local a, b = vec3(1, 2, 3), vec3(4, -5, 6)\n"
        "  check(a + b == vec3(5, -3, 9) and a - b == vec3(-3, 7, -3) and -a == vec3(-1, -2, -3),"
        " 3)\n"
        "  check(a * 2 == vec3(2, 4, 6) and 2 * a == vec3(2, 4, 6) and a * b == vec3(4, -10, 18)"
        " and b / 2 == vec3(2, -2.5, 3) and b / a == vec3(4, -2.5, 2), 4)\n"
        "  check(a ~= b and a ~= self.entity and tostring(vec3(1, 2.5, -3)) == 'vec3(1, 2.5, -3)',"
        " 5)\n"
        "  check(a:dot(b) == 12 and vec3.dot(a, b) == 12 and a:cross(b) == vec3(27, 6, -13)"
        " and vec3(3, 4, 0):length() == 5 and vec3(0, 3, 4):distance(vec3(0, 0, 0)) == 5, 6)\n"
        "  local n = vec3(0, 0, 2):normalized()\n"
        "  check(n == vec3(0, 0, 1) and vec3(0, 0, 0):normalized() == vec3(0, 0, 0)"
        " and a:lerp(b, 0.5) == vec3(2.5, -1.5, 4.5), 7)\n"
        "  local c = a:copy() c.x = 9\n"
        "  check(a.x == 1 and c == vec3(9, 2, 3) and vec3() == vec3(0, 0, 0)"
        " and vec3(1) == vec3(1, 0, 0) and vec3(0.1, 0, 0).x == 0.1, 8)\n"
        "  check(a + {x = 1, y = 1, z = 1} == vec3(2, 3, 4) and a:dot({1, 0, 0}) == 1, 9)\n"
        "  local r = quat.axis_angle(vec3(0, 1, 0), math.pi / 2) * vec3(1, 0, 0)\n"
        "  check(getmetatable(r) == getmetatable(a) and near(r.x, 0) and near(r.z, -1), 10)\n"
        "  local ok, err = pcall(function() return a.w end)\n" /* line 25 */
        "  check(not ok and err:find(\"vec.lua:25: vec3 has no field 'w'\") ~= nil, 11)\n"
        "  ok, err = pcall(function() a.foo = 1 end)\n"
        "  check(not ok and err:find(\"vec.lua:27: vec3 has no field 'foo'\") ~= nil, 12)\n"
        "  ok, err = pcall(function() a.x = 'one' end)\n"
        "  check(not ok and err:find('vec.lua:29: vec3.x is a number') ~= nil and a.x == 1, 13)\n"
        "  ok, err = pcall(function() return a[1] end)\n"
        "  check(not ok and err:find('vec.lua:31: vec3 has no field keyed by a number') ~= nil, "
        "14)\n"
        "  ok, err = pcall(function() return vec3(1, 'two', 3) end)\n"
        "  check(not ok and err:find('vec.lua:33: vec3%(x, y, z%): y is a string') ~= nil, 15)\n"
        "  ok, err = pcall(function() return a + 1 end)\n"
        "  check(not ok and err:find('vec.lua:35: vec3 %+: expected a vec3, got a number') ~= nil,"
        " 16)\n"
        "  ok, err = pcall(function() self.entity.Counter.dir = 'up' end)\n"
        "  check(not ok and err:find('vec.lua:37: Counter.dir is a vec3') ~= nil, 17)\n"
        "  self.entity.Counter.dir = self.offset * 2\n"
        "  check(self.entity.Counter.dir == vec3(0, 2, 0) and self.offset == vec3(0, 1, 0), 18)\n"
        "  local hit = rill.raycast(vec3(0, 10, 0), {0, -1, 0}, 100)\n"
        "  check(hit == nil, 19)\n"
        "  self.entity.Counter.count = self_bits\n"
        "end\n");
    rill_entity e = spawn_scripted(&f, "vec", "vec.lua", "offset = vec3(0, 1, 0)");
    frames(&f, 3);
    int32_t bits = get_counter(&f, e)->count;
    for (int b = 0; b <= 19; b++) {
        if (!(bits & (1 << b))) {
            fail_msg("vec3 check %d failed (bits 0x%x); last log: %s", b, (unsigned)bits,
                     f.log.last_msg);
        }
    }
    const rill_transform *t = rill_world_get(f.w, e, RILL_COMPONENT_TRANSFORM);
    assert_true(t->translation[0] == 1.0f && t->translation[1] == 20.0f &&
                t->translation[2] == 3.0f);
    const counter *c = get_counter(&f, e);
    assert_true(c->dir[0] == 0.0f && c->dir[1] == 2.0f && c->dir[2] == 0.0f);
    assert_true(rill_scripts_running(f.s, e));
    close_fixture(&f);
}

/* The vec2, vec4 and color types (userdata of two, four and four doubles, lanes types like vec3):
 * a field read is a fresh copy; the constructors' defaults; a colour's lanes r, g, b, a are also
 * x, y, z, w; tables are still taken for writes; a value of another lane count is refused naming
 * both types; bad fields and lanes are errors naming the script line; a built-in component's
 * fields (Camera.clear_color, the clamped Camera.viewport) read as these types; a property
 * default of these types is each instance's own copy; the per-lane arithmetic and methods give
 * the right numbers and values of the operand's type, and bad operands name both types. */
static void test_vecs_types(void **state) {
    (void)state;
    fixture f;
    open_fixture(&f, "script_vecs");
    write_script(
        &f, "vecs.lua",
        "local function check(c, bit) if c then self_bits = (self_bits or 0) | (1 << bit) end end\n"
        "properties = { spot = vec2(1, 1) }\n"
        "function update(self, dt)\n"
        "  if rill.frame() ~= 2 then return end\n"
        "  local c = self.entity.Counter\n"
        "  c.uv = vec2(1, 2)\n"
        "  local a, b = c.uv, c.uv\n"
        "  check(type(a) == 'userdata' and a == b and not rawequal(a, b) and a == vec2(1, 2) and "
        "tostring(a) == 'vec2(1, 2)', 0)\n"
        "  a.y = 20\n"
        "  check(b.y == 2 and c.uv.y == 2, 1)\n"
        "  c.uv = a\n"
        "  check(c.uv == vec2(1, 20) and vec2(1) == vec2(1, 0) and vec2() == vec2(0, 0), 2)\n"
        "  c.box = vec4(1, 2, 3, 4)\n"
        "  check(c.box == vec4(1, 2, 3, 4) and c.box.w == 4 and vec4() == vec4(0, 0, 0, 0) and "
        "tostring(vec4(1, 2.5, 0, -1)) == 'vec4(1, 2.5, 0, -1)', 3)\n"
        "  c.tint = color(1, 0.5, 0.25)\n"
        "  local t = c.tint\n"
        "  check(t.r == 1 and t.g == 0.5 and t.b == 0.25 and t.a == 1 and t.x == 1 and t.y == 0.5 "
        "and t.w == 1 and tostring(t) == 'color(1, 0.5, 0.25, 1)' and color() == color(0, 0, 0, "
        "1), 4)\n"
        "  t.x = 0 t.a = 0.5\n"
        "  check(t == color(0, 0.5, 0.25, 0.5) and t.r == 0 and c.tint.r == 1, 5)\n"
        "  c.tint = {r = 0, g = 1, b = 0, a = 1} c.uv = {3, 4} c.box = {x = 1, y = 1, z = 1, w = "
        "1}\n"
        "  check(c.tint == color(0, 1, 0, 1) and c.uv == vec2(3, 4) and c.box == vec4(1, 1, 1, 1), "
        "6)\n"
        "  c.tint = vec4(0.25, 0.25, 0.25, 1) c.uv = vec3(5, 6, 7)\n"
        "  check(c.tint == color(0.25, 0.25, 0.25, 1) and c.uv == vec2(5, 6) and vec4(1, 2, 3, 4) "
        "~= color(1, 2, 3, 4) and vec2(0, 0) ~= vec3(0, 0, 0), 7)\n"
        "  local ok, err = pcall(function() return t.q end)\n"
        "  check(not ok and err:find(\"vecs.lua:24: color has no field 'q' (its fields: r, g, b, "
        "a; or x, y, z, w)\", 1, true) ~= nil, 8)\n"
        "  ok, err = pcall(function() return a.z end)\n"
        "  check(not ok and err:find(\"vecs.lua:26: vec2 has no field 'z' (its fields: x, y)\", 1, "
        "true) ~= nil, 9)\n"
        "  ok, err = pcall(function() t.x = 'red' end)\n"
        "  check(not ok and err:find('vecs.lua:28: color.r is a number', 1, true) ~= nil, 10)\n"
        "  ok, err = pcall(function() return vec2(1, 'two') end)\n"
        "  check(not ok and err:find('vecs.lua:30: vec2(x, y): y is a string', 1, true) ~= nil, "
        "11)\n"
        "  ok, err = pcall(function() c.uv = color(1, 2, 3, 4) end)\n"
        "  check(not ok and err:find('vecs.lua:32: Counter.uv is a vec2; cannot set it to a "
        "color', "
        "1, true) ~= nil, 12)\n"
        "  ok, err = pcall(function() c.box = vec2(1, 2) end)\n"
        "  check(not ok and err:find('vecs.lua:34: Counter.box is a vec4; cannot set it to a "
        "vec2', "
        "1, true) ~= nil, 13)\n"
        "  local cam = rill.spawn{name = 'vc', Camera = {clear_color = color(0.5, 0.25, 0.125), "
        "viewport = vec4(0, 0, 0.5, 2)}}\n"
        "  local cc = cam.Camera.clear_color\n"
        "  check(cc == color(0.5, 0.25, 0.125, 1) and cc.x == cc.r and cam.Camera.viewport == "
        "vec4(0, 0, 0.5, 1), 14)\n"
        "  check(self.spot == vec2(1, 1) and self.tint == color(1, 0, 0, 1) and type(self.tint) == "
        "'userdata', 15)\n"
        "  check(vec2(1, 2) + vec2(3, 4) == vec2(4, 6) and vec2(1, 2) - {1, 1} == vec2(0, 1) and "
        "-vec2(1, -2) == vec2(-1, 2) and vec2(4, 2) / 2 == vec2(2, 1) and vec2(4, 2) / vec2(2, 1) "
        "== vec2(2, 2), 16)\n"
        "  check(vec4(1, 2, 3, 4) * 2 == vec4(2, 4, 6, 8) and 0.5 * color(1, 1, 1, 1) == "
        "color(0.5, 0.5, 0.5, 0.5) and color(1, 0.5, 0, 1) * color(0.5, 0.5, 0.5, 1) == color(0.5, "
        "0.25, 0, 1) and getmetatable(color() * 2) == getmetatable(color()), 17)\n"
        "  check(tostring(color(1, 0, 0, 1):lerp(color(0, 0, 1, 1), 0.5)) == 'color(0.5, 0, 0.5, "
        "1)' and vec2(3, 4):length() == 5 and vec2.dot(vec2(1, 2), {3, 4}) == 11 and vec4(0, 0, 0, "
        "2):normalized() == vec4(0, 0, 0, 1) and vec2(0, 0):normalized() == vec2(0, 0), 18)\n"
        "  check(vec2(1, 1):distance(vec2(4, 5)) == 5 and vec4(1, 2, 3, 4):copy() == vec4(1, 2, 3, "
        "4) and c.uv + vec2(1, 1) == vec2(6, 7), 19)\n"
        "  ok, err = pcall(function() return vec2(1, 2) + 1 end)\n"
        "  check(not ok and err:find('vecs.lua:44: vec2 +: expected a vec2, got a number', 1, "
        "true) ~= nil, 20)\n"
        "  ok, err = pcall(function() return color(1, 1, 1) * vec3(1, 2, 3) end)\n"
        "  check(not ok and err:find('vecs.lua:46: color *: expected a color, got a vec3', 1, "
        "true) ~= nil, 21)\n"
        "  ok, err = pcall(function() return vec2(1, 2):cross(vec2(3, 4)) end)\n"
        "  check(not ok and err:find(\"vecs.lua:48: vec2 has no field 'cross' (its fields: x, "
        "y)\", 1, true) ~= nil, 22)\n"
        "  ok, err = pcall(function() return vec2(1, 2) + vec3(1, 2, 3) end)\n"
        "  check(not ok and err:find('vecs.lua:50: vec2 +: expected a vec2, got a vec3', 1, true) "
        "~= nil and color(0, 0, 0, 0) + vec4(0.1, 0, 0, 0) == color(0.1, 0, 0, 0) and vec3(0.1, 0, "
        "0) + {0.1, 0, 0} == vec3(0.2, 0, 0), 23)\n"
        "  self.spot.x = 9\n"
        "  c.count = self_bits\n"
        "end\n");
    rill_entity e[2] = {spawn_scripted(&f, "v1", "vecs.lua", "tint = color(1, 0, 0)"),
                        spawn_scripted(&f, "v2", "vecs.lua", "tint = color(1, 0, 0)")};
    frames(&f, 3);
    for (int i = 0; i < 2; i++) {
        int32_t bits = get_counter(&f, e[i])->count;
        for (int b = 0; b <= 23; b++) {
            if (!(bits & (1 << b))) {
                fail_msg("vecs check %d of instance %d failed (bits 0x%x); last log: %s", b, i,
                         (unsigned)bits, f.log.last_msg);
            }
        }
        const counter *c = get_counter(&f, e[i]);
        assert_true(c->uv[0] == 5.0f && c->uv[1] == 6.0f);
        assert_true(c->tint[0] == 0.25f && c->tint[2] == 0.25f && c->tint[3] == 1.0f);
        assert_true(c->box[0] == 1.0f && c->box[3] == 1.0f);
        assert_true(rill_scripts_running(f.s, e[i]));
    }
    close_fixture(&f);
}

/* The quat type (a userdata of four doubles): a rotation read is a copy; composition, rotation
 * of a vec3, inverse, slerp, euler and the rest give the right numbers; tables are taken where a
 * quat is; bad fields, lanes and operands are errors naming the script line. */
static void test_quat_type(void **state) {
    (void)state;
    fixture f;
    open_fixture(&f, "script_quat");
    write_script(
        &f, "q.lua",
        "local function check(c, bit) if c then self_bits = (self_bits or 0) | (1 << bit) end end\n"
        "local function near(a, b) return math.abs(a - b) < 1e-6 end\n"
        "local function qnear(a, b) return near(a.x, b.x) and near(a.y, b.y) and near(a.z, b.z) "
        "and near(a.w, b.w) end\n"
        "local Y = vec3(0, 1, 0)\n"
        "function update(self, dt)\n"
        "  if rill.frame() ~= 2 then return end\n"
        "  local t = self.entity.Transform\n"
        "  t.rotation = quat.axis_angle(Y, 0.5)\n"
        "  local r, s = t.rotation, t.rotation\n"
        "  check(type(r) == 'userdata' and r == s and not rawequal(r, s) and qnear(r, "
        "quat.axis_angle(Y, 0.5)), 0)\n"
        "  r.w = 0\n"
        "  check(s.w ~= 0 and t.rotation.w ~= 0, 1)\n"
        "  check(quat() == quat(0, 0, 0, 1) and quat(1, 2, 3, 4).w == 4 and tostring(quat()) == "
        "'quat(0, 0, 0, 1)', 2)\n"
        "  local v = quat.axis_angle(vec3(0, 0, 1), math.pi / 2) * vec3(1, 0, 0)\n"
        "  check(getmetatable(v) == getmetatable(Y) and near(v.x, 0) and near(v.y, 1) and "
        "near(v.z, 0), 3)\n"
        "  local a, b = quat.axis_angle(Y, 0.3), quat.axis_angle(Y, 0.4)\n"
        "  check(qnear(a * b, quat.axis_angle(Y, 0.7)) and qnear(a * a:inverse(), quat()) and "
        "near(a:length(), 1), 4)\n"
        "  check(quat(0, 0, 0, 2):normalized() == quat() and quat(0, 0, 0, 0):normalized() == "
        "quat() and near(a:dot(a), 1), 5)\n"
        "  local c = quat.axis_angle(Y, 1)\n"
        "  check(qnear(quat():slerp(c, 0.5), quat.axis_angle(Y, 0.5)) and qnear(a:slerp(b, 0), a) "
        "and qnear(a:slerp(b, 1), b), 6)\n"
        "  check(qnear(quat.euler(0, 0.5, 0), quat.axis_angle(Y, 0.5)) and qnear(quat.euler(0.1, "
        "0.2, 0.3), quat.axis_angle(Y, 0.2) * quat.axis_angle(vec3(1, 0, 0), 0.1) * "
        "quat.axis_angle(vec3(0, 0, 1), 0.3)), 7)\n"
        "  local d = a:copy() d.x = 5\n"
        "  check(a.x == 0 and d.x == 5 and quat() * {x = 0, y = 0, z = 0, w = 1} == quat(), 8)\n"
        "  local ok, err = pcall(function() return a.v end)\n"
        "  check(not ok and err:find(\"q.lua:24: quat has no field 'v'\") ~= nil, 9)\n"
        "  ok, err = pcall(function() a.x = 'one' end)\n"
        "  check(not ok and err:find('q.lua:26: quat.x is a number') ~= nil, 10)\n"
        "  ok, err = pcall(function() return quat(1, 'a') end)\n"
        "  check(not ok and err:find('q.lua:28: quat%(x, y, z, w%): y is a string') ~= nil, 11)\n"
        "  ok, err = pcall(function() return a * 2 end)\n"
        "  check(not ok and err:find('q.lua:30: quat %*: expected a quat, got a number') ~= nil, "
        "12)\n"
        "  ok, err = pcall(function() t.translation = a end)\n"
        "  check(not ok and err:find('q.lua:32: Transform.translation is a vec3') ~= nil, 13)\n"
        "  t.rotation = {0, 0, 0, 1}\n"
        "  check(t.rotation == quat(), 14)\n"
        "  t.rotation = quat.axis_angle(Y, 0.5)\n"
        "  self.entity.Counter.count = self_bits\n"
        "end\n");
    rill_entity e = spawn_scripted(&f, "q", "q.lua", NULL);
    frames(&f, 3);
    int32_t bits = get_counter(&f, e)->count;
    for (int b = 0; b <= 14; b++) {
        if (!(bits & (1 << b))) {
            fail_msg("quat check %d failed (bits 0x%x); last log: %s", b, (unsigned)bits,
                     f.log.last_msg);
        }
    }
    const rill_transform *t = rill_world_get(f.w, e, RILL_COMPONENT_TRANSFORM);
    assert_true(fabsf(t->rotation[1] - sinf(0.25f)) < 1e-6f &&
                fabsf(t->rotation[3] - cosf(0.25f)) < 1e-6f);
    assert_true(rill_scripts_running(f.s, e));
    close_fixture(&f);
}

/* rill.log writes one line naming the script file and line. */
static void test_log_names_script(void **state) {
    (void)state;
    fixture f;
    open_fixture(&f, "script_log");
    write_script(&f, "scripts/hello.lua", "function init(self)\n  rill.log('hi', 1, true)\nend\n");
    spawn_scripted(&f, "h", "scripts/hello.lua", NULL);
    int before = rill_test_log_count(&f.log, RILL_LOG_INFO);
    frames(&f, 1);
    assert_true(rill_test_log_count(&f.log, RILL_LOG_INFO) > before);
    assert_string_equal(f.log.last_msg, "scripts/hello.lua:2: hi\t1\ttrue");
    close_fixture(&f);
}

/* >>scenes ------------------------------------------------------------------------------------- */

static const char EXTRA_RSN[] = "rsn 1\n"
                                "entity 1 \"extra-a\" { Transform { translation: (1, 0, 0) } }\n"
                                "entity 2 \"extra-b\" { Transform { translation: (2, 0, 0) } }\n"
                                "entity 3 \"extra-c\" { Transform { translation: (3, 0, 0) } }\n";

/* load_scene's handle reports progress up to 1; the loaded event reaches on_event exactly once,
 * carrying the same handle; unload_scene takes the entities away. */
static void test_load_scene(void **state) {
    (void)state;
    fixture f;
    open_fixture(&f, "script_load_scene");
    rill_test_write_file(f.dir, "scenes/extra.rsn", EXTRA_RSN, strlen(EXTRA_RSN));
    write_script(&f, "loader.lua",
                 "function init(self)\n"
                 "  self.h = rill.load_scene('scenes/extra.rsn', {additive = true,"
                 " position = vec3(0, 5, 0), name = 'district'})\n"
                 "  self.events = 0 self.max = 0 self.mono = true self.last = -1 end\n"
                 "function on_event(self, ev)\n"
                 "  if ev.type == 'scene_loaded' and ev.scene == self.h then\n"
                 "    self.events = self.events + 1 self.event_loaded = ev.scene:loaded() end end\n"
                 "function update(self, dt)\n"
                 "  local p = self.h:progress()\n"
                 "  if p < self.last then self.mono = false end self.last = p\n"
                 "  local c = self.entity.Counter\n"
                 "  c.value = p c.count = self.events\n"
                 "  c.flag = self.mono and self.event_loaded == true and self.h:loaded()\n"
                 "  if rill.frame() == 30 then c.text = tostring(rill.find('extra-b') ~= nil)\n"
                 "    rill.unload_scene(self.h) end\n"
                 "  if rill.frame() == 31 then c.text = c.text .. tostring(rill.find('extra-b'))"
                 " end\n"
                 "end\n");
    rill_entity e = spawn_scripted(&f, "loader", "loader.lua", NULL);
    frames(&f, 29);
    counter *c = get_counter(&f, e);
    assert_true(c->value == 1.0f);
    assert_int_equal(c->count, 1);
    assert_true(c->flag);
    rill_entity b = rill_world_find_by_name(f.w, "extra-b");
    assert_true(b != 0);
    /* Under the instance root placed at (0, 5, 0). */
    const float *m = rill_world_global_matrix(f.w, b);
    assert_true(m[12] == 2.0f && m[13] == 5.0f);
    frames(&f, 2);
    assert_string_equal(get_counter(&f, e)->text, "truenil");
    assert_int_equal(get_counter(&f, e)->count, 1);
    close_fixture(&f);
}

/* >>sandbox ------------------------------------------------------------------------------------ */

/* What a script cannot reach: each line must fail (or find nothing). */
static void test_sandbox_refuses(void **state) {
    (void)state;
    fixture f;
    open_fixture(&f, "script_sandbox");
    static const char *const escapes[] = {
        "io.open('/etc/passwd')",
        "os.execute('true')",
        "package.loadlib('libc.so.6', 'system')",
        "debug.sethook()",
        "load('return 1')()",
        "loadfile('/etc/passwd')",
        "dofile('/etc/passwd')",
        "string.dump(print)",
        "collectgarbage('stop')",
        "require('os')",
        "require('../../etc/passwd')",
        "getmetatable('').__index.rep = nil",
        "setmetatable({}, {__gc = function() end})",
        "local s = string.rep('x', 1 << 40)",
        "local s = string.rep('abcdefgh', 1 << 24)",   /* 128 MiB: over the 64 MiB limit */
        "local t = {} for i = 1, 1e9 do t[i] = i end", /* memory, then budget */
        "while true do end",
        "local function f() return 1 + f() end f()",
        "while true do pcall(function() while true do end end) end",
        "local t = {} while true do t[#t + 1] = ('x'):rep(1000) .. #t end",
        "rill.spawn{name = 'x', NoSuchComponent = {}}",
        "require('nope')",
    };
    for (size_t i = 0; i < RILL_COUNTOF(escapes); i++) {
        rill_error err = {0};
        rill_result r = rill_scripts_exec(f.s, "escape", escapes[i], &err);
        if (r == RILL_OK) {
            fail_msg("escape %zu was not refused: %s", i, escapes[i]);
        }
    }
    /* The state is still good, and the engine keeps running frames with scripts in them. */
    rill_error err = {0};
    assert_int_equal(
        rill_scripts_exec(f.s, "after", "local x = vec3(1, 2, 3) assert(x.y == 2)", &err), RILL_OK);
    write_script(&f, "ok.lua",
                 "function update(self) local c = self.entity.Counter c.count = c.count + 1 end\n");
    rill_entity e = spawn_scripted(&f, "ok", "ok.lua", NULL);
    frames(&f, 3);
    assert_int_equal(get_counter(&f, e)->count, 3);
    rill_scripts_stats st;
    rill_scripts_get_stats(f.s, &st);
    assert_true(st.memory_bytes < ((size_t)16 << 20));
    close_fixture(&f);
}

/* Wrong values are named as a script author knows them (an entity, a Transform component, a
 * vec3, a scene handle), never as "userdata" or an internal metatable name, with what was wanted
 * and the chunk's name and line. */
static void test_errors_name_value_kinds(void **state) {
    (void)state;
    fixture f;
    open_fixture(&f, "script_names");
    rill_entity e = rill_world_spawn(f.w);
    rill_world_set_name(f.w, e, "target");
    rill_transform t = rill_transform_identity();
    rill_world_set_transform(f.w, e, &t);
    rill_world_add(f.w, e, f.counter, NULL);
    static const struct {
        const char *code, *want;
    } cases[] = {
        {"local e = rill.find('target')\ne.Counter.dir = e",
         "names:2: Counter.dir is a vec3; cannot set it to an entity"},
        {"local e = rill.find('target')\ne.Counter.count = e.Transform",
         "names:2: Counter.count is an i32; cannot set it to a Transform component"},
        {"local e = rill.find('target') e.Counter.flag = nil",
         "names:1: Counter.flag is a bool; cannot set it to nil"},
        {"local e = rill.find('target') e:set_parent(vec3(1, 2, 3))",
         "names:1: bad argument #1 to 'set_parent' (expected an entity, got a vec3)"},
        {"rill.despawn(quat())", "names:1: bad argument #1 to 'despawn' (expected an entity, got a "
                                 "quat)"},
        {"rill.spawn(3)", "names:1: bad argument #1 to 'spawn' (expected a name or a table, got a "
                          "number)"},
        {"local e = rill.find('target') local x = e[1]",
         "names:1: an entity has no field keyed by a number"},
        {"local e = rill.find('target') local x = e.Counter[true]",
         "names:1: Counter has no field keyed by a boolean"},
        {"local v = vec3(1, 2, 3) + rill.find('target')",
         "names:1: vec3 +: expected a vec3, got an entity"},
        {"local v = vec3(1, 2, 3) v.x = rill.find('target').Counter",
         "names:1: vec3.x is a number; cannot set it to a Counter component"},
        {"local v = vec2(1, rill.find('target'))", "names:1: vec2(x, y): y is an entity, not a "
                                                   "number"},
        {"rill.raycast(rill.find('target'), vec3(0, -1, 0))",
         "names:1: raycast origin must be a vec3, not an entity"},
        {"local x = rill.find('target'):has(rill.find('target'))",
         "names:1: bad argument #1 to 'has' (string expected, got entity)"},
        {"local e = rill.find('target') local t = e.Trasnform",
         "names:1: unknown component 'Trasnform'; did you mean 'Transform'?"},
        {"rill.spawn{name = 'x', counter = {}}",
         "names:1: unknown component 'counter'; did you mean 'Counter'?"},
        {"local e = rill.find('target')\ne.Counter = 5",
         "names:2: Counter is set from a table of its fields, not a number"},
        {"local e = rill.find('target')\ne.Counter = {count = 'x'}",
         "names:2: Counter.count is an i32; cannot set it to a string"},
        {"rill.spawn{name = 'x',\nCounter = {count = vec3()}}",
         "names:1: Counter.count is an i32; cannot set it to a vec3"},
        {"local e = rill.find('target') e:add('Counter', 'full')",
         "names:1: Counter is set from a table of its fields, not a string"},
        {"error(vec3(1, 2, 3))", "(error object is a vec3, not a string)"},
        {"error(rill.find('target'))", "(error object is an entity, not a string)"},
        {"local x = vec3(1, 2, 3):length() + rill.find('target')",
         "names:1: attempt to perform arithmetic on"}, /* Lua's own: names "entity" */
    };
    for (size_t i = 0; i < RILL_COUNTOF(cases); i++) {
        rill_error err = {0};
        rill_result r = rill_scripts_exec(f.s, "names", cases[i].code, &err);
        if (r == RILL_OK || !strstr(err.msg, cases[i].want)) {
            fail_msg("case %zu: wanted \"%s\", got %s \"%s\"", i, cases[i].want,
                     rill_result_name(r), err.msg);
        }
        if (strstr(err.msg, "userdata") || strstr(err.msg, "rill.")) {
            fail_msg("case %zu leaks an implementation word: \"%s\"", i, err.msg);
        }
    }
    close_fixture(&f);
}

/* A script file saved with a UTF-8 byte-order mark (Windows editors write one) runs; one with a
 * mark in the middle is a syntax error naming its line. */
static void test_byte_order_mark(void **state) {
    (void)state;
    fixture f;
    open_fixture(&f, "script_bom");
    write_script(&f, "bom.lua",
                 "\xEF\xBB\xBF-- saved by a Windows editor\r\n"
                 "function update(self) self.entity.Counter.count = 5 end\r\n");
    write_script(&f, "mid.lua",
                 "local x = 1\n\xEF\xBB\xBF"
                 "function update(self) end\n");
    rill_entity ok = spawn_scripted(&f, "ok", "bom.lua", NULL);
    rill_entity bad = spawn_scripted(&f, "bad", "mid.lua", NULL);
    frames(&f, 2);
    assert_int_equal(get_counter(&f, ok)->count, 5);
    assert_true(rill_scripts_running(f.s, ok));
    assert_false(rill_scripts_running(f.s, bad));
    close_fixture(&f);
    /* The export's compile check reads it the same way. */
    rill_error err = {0};
    const char bom[] = "\xEF\xBB\xBF"
                       "function update(self) end\n";
    assert_int_equal(rill_scripts_check_source("b.lua", bom, sizeof bom - 1, &err), RILL_OK);
    const char mid[] = "local x = 1\n\xEF\xBB\xBF"
                       "function update(self) end\n";
    assert_int_equal(rill_scripts_check_source("m.lua", mid, sizeof mid - 1, &err), RILL_ERR_PARSE);
    assert_non_null(strstr(err.msg, "m.lua:2:"));
    const char utf16[] = "\xFF\xFE-\0-\0\n\0";
    assert_int_equal(rill_scripts_check_source("u.lua", utf16, sizeof utf16 - 1, &err),
                     RILL_ERR_PARSE);
    assert_string_equal(err.msg, "u.lua:1: " RILL_TEXT_UTF16_HINT);
}

/* A runaway script (an endless loop in update) is stopped with its file:line and a traceback and
 * disabled; a script on another entity and the frame loop carry on. So does deep recursion in
 * another, and a memory bomb in a third. */
static void test_runaway_stopped(void **state) {
    (void)state;
    fixture f;
    open_fixture(&f, "script_runaway");
    write_script(&f, "loop.lua",
                 "function helper() local n = 0\n"
                 "  while true do n = n + 1 end end\n"
                 "function update(self)\n"
                 "  if rill.frame() == 3 then helper() end\n"
                 "  local c = self.entity.Counter c.count = c.count + 1 end\n");
    write_script(&f, "deep.lua",
                 "local function f(n) return 1 + f(n + 1) end\n"
                 "function update(self) if rill.frame() == 2 then f(1) end\n"
                 "  local c = self.entity.Counter c.count = c.count + 1 end\n");
    write_script(&f, "bomb.lua",
                 "function update(self) local t = {}\n"
                 "  if rill.frame() == 4 then for i = 1, 1e9 do t[i] = {i} end end\n"
                 "  local c = self.entity.Counter c.count = c.count + 1 end\n");
    write_script(&f, "good.lua",
                 "function update(self) local c = self.entity.Counter c.count = c.count + 1 end\n");
    rill_entity loop = spawn_scripted(&f, "loop", "loop.lua", NULL);
    rill_entity deep = spawn_scripted(&f, "deep", "deep.lua", NULL);
    rill_entity bomb = spawn_scripted(&f, "bomb", "bomb.lua", NULL);
    rill_entity good = spawn_scripted(&f, "good", "good.lua", NULL);
    rill_test_log_begin(&f.log);
    frames(&f, 2);
    assert_true(rill_test_log_last_has(&f.log, "deep.lua"));
    frames(&f, 1);
    assert_true(rill_test_log_last_has(&f.log, "loop.lua:2:"));
    assert_true(rill_test_log_last_has(&f.log, "instruction budget"));
    assert_true(rill_test_log_last_has(&f.log, "stack traceback"));
    assert_true(rill_test_log_last_has(&f.log, "helper"));
    frames(&f, 7);
    assert_true(rill_test_log_count(&f.log, RILL_LOG_ERROR) >= 3);
    assert_int_equal(get_counter(&f, good)->count, 10);
    assert_int_equal(get_counter(&f, deep)->count, 1);
    assert_int_equal(get_counter(&f, loop)->count, 2);
    assert_int_equal(get_counter(&f, bomb)->count, 3);
    assert_false(rill_scripts_running(f.s, loop));
    assert_false(rill_scripts_running(f.s, deep));
    assert_false(rill_scripts_running(f.s, bomb));
    assert_true(rill_scripts_running(f.s, good));
    close_fixture(&f);
}

/* >>reload ------------------------------------------------------------------------------------- */

/* A syntax error names the file and line and changes nothing; a good save reloads the script,
 * self keeps its data, on_reload runs, and the new update runs from then on. */
static void test_reload(void **state) {
    (void)state;
    fixture f;
    open_fixture(&f, "script_reload");
    write_script(&f, "r.lua",
                 "function init(self) self.n = 0 end\n"
                 "function update(self) self.n = self.n + 1\n"
                 "  self.entity.Counter.count = self.n end\n");
    rill_entity e = spawn_scripted(&f, "r", "r.lua", NULL);
    frames(&f, 3);
    assert_int_equal(get_counter(&f, e)->count, 3);
    rewrite_script(&f, "r.lua", "function update(self)\n  self.n = = 2\nend\n");
    assert_int_equal(rill_scripts_reload_changed(f.s), 0);
    assert_true(rill_test_log_last_has(&f.log, "r.lua:2:"));
    frames(&f, 2);
    assert_int_equal(get_counter(&f, e)->count, 5); /* the last good version still runs */
    rewrite_script(&f, "r.lua",
                   "function on_reload(self) self.reloaded = true end\n"
                   "function update(self) self.n = self.n + 100\n"
                   "  self.entity.Counter.count = self.n\n"
                   "  self.entity.Counter.flag = self.reloaded end\n");
    assert_int_equal(rill_scripts_reload_changed(f.s), 1);
    frames(&f, 1);
    assert_int_equal(get_counter(&f, e)->count, 105);
    assert_true(get_counter(&f, e)->flag);
    /* A runtime error stops the instance; fixing the file starts it again, self intact. */
    rewrite_script(&f, "r.lua", "function update(self) error('boom') end\n");
    assert_int_equal(rill_scripts_reload_changed(f.s), 1);
    frames(&f, 1);
    assert_false(rill_scripts_running(f.s, e));
    assert_true(rill_test_log_last_has(&f.log, "boom"));
    rewrite_script(&f, "r.lua",
                   "function update(self) self.n = self.n + 1\n"
                   "  self.entity.Counter.count = self.n end\n");
    frames(&f, 1); /* not hot_reload here: nothing changes until asked */
    assert_int_equal(get_counter(&f, e)->count, 105);
    assert_int_equal(rill_scripts_reload_changed(f.s), 1);
    frames(&f, 1);
    assert_int_equal(get_counter(&f, e)->count, 106);
    close_fixture(&f);
}

/* Bad properties text fails that instance (logged), not the others; a Script with an unknown
 * file is logged and runs nothing. */
static void test_bad_inputs(void **state) {
    (void)state;
    fixture f;
    open_fixture(&f, "script_bad");
    write_script(&f, "p.lua",
                 "properties = {speed = 1}\n"
                 "function update(self) self.entity.Counter.value = self.speed end\n");
    rill_entity ok = spawn_scripted(&f, "ok", "p.lua", "speed = 7");
    rill_entity bad = spawn_scripted(&f, "bad", "p.lua", "speed = } os.exit() {");
    rill_entity loop =
        spawn_scripted(&f, "loop", "p.lua", "speed = (function() while true do end end)()");
    rill_entity missing = spawn_scripted(&f, "missing", "nope.lua", NULL);
    frames(&f, 2);
    assert_true(get_counter(&f, ok)->value == 7.0f);
    assert_true(get_counter(&f, bad)->value == 0.0f);
    assert_true(get_counter(&f, loop)->value == 0.0f);
    assert_false(rill_scripts_running(f.s, bad));
    assert_false(rill_scripts_running(f.s, missing));
    assert_true(rill_scripts_running(f.s, ok));
    /* A reload gives an instance that never started a fresh start (its properties are still bad:
     * it fails there again), never an update with no self. */
    rewrite_script(&f, "p.lua",
                   "properties = {speed = 2}\n"
                   "function update(self) self.entity.Counter.value = self.speed end\n");
    assert_int_equal(rill_scripts_reload_changed(f.s), 1);
    frames(&f, 1);
    assert_true(rill_test_log_last_has(&f.log, "cannot start"));
    assert_false(rill_test_log_last_has(&f.log, "nil value"));
    assert_true(get_counter(&f, ok)->value == 7.0f);
    assert_false(rill_scripts_running(f.s, bad));
    close_fixture(&f);
}

/* >>events from the engine --------------------------------------------------------------------- */

/* A scripted box falls onto a static one: its on_event gets contact_begin once, naming the ground
 * as `other`, with a normal pushing it up; the ground (scripted too) gets the mirror event. A
 * pick sent into the world (as rill run does for a click) reaches every instance once, the next
 * frame, with the entity hit; a pick of nothing has no entity. */
static void test_contact_and_pick_events(void **state) {
    (void)state;
    fixture f;
    open_fixture(&f, "script_events");
    write_script(&f, "toucher.lua",
                 "function init(self) self.begins = 0 self.ends = 0 self.picks = 0 end\n"
                 "function on_event(self, ev)\n"
                 "  local c = self.entity.Counter\n"
                 "  if ev.type == 'contact_begin' then\n"
                 "    assert(ev.target == self.entity)\n"
                 "    self.begins = self.begins + 1 c.count = self.begins\n"
                 "    c.text = ev.other.name c.dir = ev.normal c.value = ev.point.y end\n"
                 "  if ev.type == 'contact_end' then self.ends = self.ends + 1 end\n"
                 "  if ev.type == 'pick' then self.picks = self.picks + 1\n"
                 "    c.flag = ev.entity ~= nil and ev.entity.name == 'ground'\n"
                 "      and ev.distance > 0 and ev.x == 10 and ev.y == 20\n"
                 "    if ev.entity == nil then c.text = 'nothing' .. self.picks end end\n"
                 "end\n");
    rill_physics_components pc = rill_physics_register(f.w);
    rill_entity ground = spawn_scripted(&f, "ground", "toucher.lua", NULL);
    rill_collider col;
    rill_type_apply_defaults(rill_world_component_type(f.w, pc.collider), &col);
    col.half_extents[0] = col.half_extents[2] = 5.0f; /* top at y = 0.5 */
    assert_non_null(rill_world_add(f.w, ground, pc.collider, &col));
    rill_entity box = spawn_scripted(&f, "box", "toucher.lua", NULL);
    rill_transform t = rill_transform_identity();
    t.translation[1] = 3.0f;
    rill_world_set_transform(f.w, box, &t);
    col.half_extents[0] = col.half_extents[2] = 0.5f;
    assert_non_null(rill_world_add(f.w, box, pc.collider, &col));
    rill_rigid_body rb;
    rill_type_apply_defaults(rill_world_component_type(f.w, pc.rigid_body), &rb);
    assert_non_null(rill_world_add(f.w, box, pc.rigid_body, &rb));
    frames(&f, 240);
    counter *c = get_counter(&f, box);
    assert_int_equal(c->count, 1);
    assert_string_equal(c->text, "ground");
    assert_true(c->dir[1] > 0.9f);              /* pushes the box up */
    assert_true(fabsf(c->value - 0.5f) < 0.2f); /* on the ground's top face */
    c = get_counter(&f, ground);
    assert_int_equal(c->count, 1);
    assert_string_equal(c->text, "box");
    assert_true(c->dir[1] < -0.9f);
    assert_int_equal(rill_test_log_count(&f.log, RILL_LOG_ERROR), 0);

    /* A pick of the ground at pixel (10, 20), then a pick of nothing. */
    rill_pick_hit hit = {
        .entity = ground, .distance = 7.0f, .point = {0, 0.5f, 0}, .normal = {0, 1, 0}};
    assert_true(rill_channels_send_pick(f.w, &hit, 10.0f, 20.0f));
    frames(&f, 1);
    assert_true(get_counter(&f, box)->flag && get_counter(&f, ground)->flag);
    assert_true(rill_channels_send_pick(f.w, NULL, 1.0f, 1.0f));
    frames(&f, 2);
    assert_string_equal(get_counter(&f, box)->text, "nothing2");
    assert_string_equal(get_counter(&f, ground)->text, "nothing2");
    close_fixture(&f);
}

/* No gamepad (a headless run, or none plugged in): every gamepad call reads neutral. A gamepad
 * the window layer reports reads back by name, sticks and triggers alike; bad names are errors
 * naming the line. */
static void test_gamepad(void **state) {
    (void)state;
    fixture f;
    open_fixture(&f, "script_gamepad");
    write_script(&f, "pad.lua",
                 "function update(self, dt)\n"
                 "  local c = self.entity.Counter\n"
                 "  c.flag = rill.gamepad() or rill.gamepad(4) or rill.gamepad_down('a')\n"
                 "    or rill.gamepad_pressed('start', 2) or rill.gamepad_down('dpad_left')\n"
                 "  c.dir = vec3(rill.gamepad_axis('left_x'), rill.gamepad_axis('right_y'),\n"
                 "               rill.gamepad_axis('right_trigger', 2))\n"
                 "  c.count = (rill.gamepad(2) and 1 or 0) + (rill.gamepad_down('b', 2) and 2 or 0)"
                 "\n    + (rill.gamepad_pressed('dpad_up', 2) and 4 or 0)\n"
                 "  local ok, err = pcall(function() return rill.gamepad_down('z') end)\n"
                 "  local ok2, err2 = pcall(function() return rill.gamepad_axis('left_x', 5) end)\n"
                 "  c.text = tostring(ok) .. tostring(ok2) .. '|' .. err .. '|' .. err2\n"
                 "end\n");
    rill_entity e = spawn_scripted(&f, "pad", "pad.lua", NULL);
    frames(&f, 2);
    counter *c = get_counter(&f, e);
    assert_false(c->flag);
    assert_true(c->dir[0] == 0.0f && c->dir[1] == 0.0f && c->dir[2] == 0.0f);
    assert_int_equal(c->count, 0);
    assert_non_null(strstr(c->text, "falsefalse|"));
    assert_non_null(strstr(c->text, "pad.lua:9: unknown gamepad button 'z'"));
    assert_non_null(strstr(c->text, "gamepad index 5 is out of 1..4"));

    rill_script_input in = {0};
    in.gamepads[1].connected = true;
    in.gamepads[1].button_down[1] = true;     /* b */
    in.gamepads[1].button_pressed[11] = true; /* dpad_up */
    in.gamepads[1].axis[5] = 0.75f;           /* right_trigger */
    rill_scripts_set_input(f.s, &in);
    frames(&f, 1);
    c = get_counter(&f, e);
    assert_false(c->flag); /* pad 1 is still absent */
    assert_int_equal(c->count, 1 + 2 + 4);
    assert_true(c->dir[2] == 0.75f);
    close_fixture(&f);
}

/* The export-time check: good text compiles, a syntax error names file:line, a binary chunk and
 * truncated text are refused, nothing runs (an infinite loop compiles at once). */
static void test_check_source(void **state) {
    (void)state;
    rill_error err = {0};
    const char *good = "function update(self, dt) while true do end end\n";
    assert_int_equal(rill_scripts_check_source("a.lua", good, strlen(good), &err), RILL_OK);
    assert_int_equal(rill_scripts_check_source("a.lua", "", 0, &err), RILL_OK);
    const char *bad = "x = 1\nfunction f(\n";
    assert_int_equal(rill_scripts_check_source("s/b.lua", bad, strlen(bad), &err), RILL_ERR_PARSE);
    assert_non_null(strstr(err.msg, "s/b.lua:3:"));
    const char bin[] = "\x1bLua\x54\x00garbage";
    assert_int_equal(rill_scripts_check_source("c.lua", bin, sizeof(bin) - 1, &err),
                     RILL_ERR_PARSE);
    assert_non_null(strstr(err.msg, "c.lua:1: a binary"));
    for (size_t n = 1; n < strlen(good); n++) { /* every truncation: an error or fine, no crash */
        (void)rill_scripts_check_source("t.lua", good, n, &err);
    }
    assert_int_equal(rill_scripts_check_source(NULL, good, 1, &err), RILL_ERR_INVALID_ARGUMENT);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lifecycle),
        cmocka_unit_test(test_writes_seen_same_frame),
        cmocka_unit_test(test_api),
        cmocka_unit_test(test_cached_lookups),
        cmocka_unit_test(test_vec3_type),
        cmocka_unit_test(test_quat_type),
        cmocka_unit_test(test_vecs_types),
        cmocka_unit_test(test_log_names_script),
        cmocka_unit_test(test_load_scene),
        cmocka_unit_test(test_sandbox_refuses),
        cmocka_unit_test(test_errors_name_value_kinds),
        cmocka_unit_test(test_byte_order_mark),
        cmocka_unit_test(test_runaway_stopped),
        cmocka_unit_test(test_reload),
        cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_contact_and_pick_events),
        cmocka_unit_test(test_gamepad),
        cmocka_unit_test(test_check_source),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
