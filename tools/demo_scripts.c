/* demo_scripts.c: the demo city's scripted life (docs/scripting.md), written into the generated
 * project the way a user's project holds it: .lua files under scripts/ and Script components on
 * entities of main.rsn. Nothing here runs the scripts: `rill run`, `rill render`, `rill demo`'s
 * views and the exported pack run them like any project's.
 *   scripts/day_night.lua       on the Sun: turns the sun-marked DirectionalLight through the day
 *                               (the sky follows it), dims it at night
 *   scripts/car.lua             cars driving around city blocks, in the lanes of the streets
 *   scripts/door.lua            the city gate's two doors: they swing open while the camera is
 *                               near and shut when it leaves
 *   scripts/district_loader.lua L loads an extra district (streamed, additive) into the city's
 *                               empty lot, L again unloads it */
#include "demo.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rill/scene/model.h"
#include "rill/script.h"

static const char DAY_NIGHT_LUA[] =
    "-- scripts/day_night.lua: a day/night cycle. On the entity with the sun-marked\n"
    "-- DirectionalLight: turns it as the sun goes through the day (latitude 45, an equinox), so\n"
    "-- the physical sky follows it, and dims its light at dusk.\n"
    "properties = { start_hour = 13, day_minutes = 24 }  -- a whole day in 24 real minutes\n"
    "\n"
    "-- The direction the light travels at `hour` (the sun is at -dir).\n"
    "local function sun_direction(hour)\n"
    "  local ha = math.rad(15 * (hour - 12))\n"
    "  local lat = math.rad(45)\n"
    "  local to_sun = vec3(-math.sin(ha), math.cos(lat) * math.cos(ha),\n"
    "                      -math.sin(lat) * math.cos(ha))\n"
    "  return -to_sun:normalized()\n"
    "end\n"
    "\n"
    "-- The rotation taking the light's -Z axis onto d.\n"
    "local function rotation_to(d)\n"
    "  local w = 1 - d.z\n"
    "  if w < 1e-6 then return quat(0, 1, 0, 0) end\n"
    "  return quat(d.y, -d.x, 0, w):normalized()\n"
    "end\n"
    "\n"
    "local function clock(hour)\n"
    "  local s = math.floor(hour * 3600 + 0.5) % 86400\n"
    "  return string.format('%02d:%02d:%02d', s // 3600, s // 60 % 60, s % 60)\n"
    "end\n"
    "\n"
    "local function apply(self)\n"
    "  local d = sun_direction(self.hour)\n"
    "  self.entity.Transform.rotation = rotation_to(d)\n"
    "  -- Full light with the sun 10 degrees up, a little moonlight at night.\n"
    "  local up = math.max(0, math.min(1, -d.y / math.sin(math.rad(10))))\n"
    "  self.entity.DirectionalLight.illuminance = self.full * math.max(0.02, up)\n"
    "end\n"
    "\n"
    "function init(self)\n"
    "  self.hour = self.start_hour\n"
    "  self.full = self.entity.DirectionalLight.illuminance\n"
    "  apply(self)\n"
    "  rill.log('sun at ' .. clock(self.hour))\n"
    "end\n"
    "\n"
    "function update(self, dt)\n"
    "  local before = math.floor(self.hour)\n"
    "  self.hour = (self.hour + dt * 24 / (self.day_minutes * 60)) % 24\n"
    "  apply(self)\n"
    "  if math.floor(self.hour) ~= before then rill.log('sun at ' .. clock(self.hour)) end\n"
    "end\n"
    "\n"
    "function final(self) rill.log('sun at ' .. clock(self.hour)) end\n";

static const char CAR_LUA[] =
    "-- scripts/car.lua: a car driving around a city block (centre cx, cz), counterclockwise\n"
    "-- seen from above, `half` metres from the block's centre: one metre past the street's "
    "middle\n"
    "-- line, so the car of the next block drives the other way in the other lane.\n"
    "properties = { cx = 0, cz = 0, half = 26, speed = 10, start = 0, report = false }\n"
    "\n"
    "local UP = vec3(0, 1, 0)\n"
    "\n"
    "-- Position and heading (unit x, z) at distance s along the loop.\n"
    "local function along(self, s)\n"
    "  local h = self.half\n"
    "  local leg = math.floor(s / (2 * h)) % 4\n"
    "  local u = s - math.floor(s / (2 * h)) * 2 * h - h\n"
    "  if leg == 0 then return self.cx + u, self.cz + h, 1, 0 end\n"
    "  if leg == 1 then return self.cx + h, self.cz - u, 0, -1 end\n"
    "  if leg == 2 then return self.cx - u, self.cz - h, -1, 0 end\n"
    "  return self.cx - h, self.cz + u, 0, 1\n"
    "end\n"
    "\n"
    "function init(self)\n"
    "  self.s = self.start * 8 * self.half\n"
    "  self.driven = 0\n"
    "  self.from = self.entity.Transform.translation\n"
    "end\n"
    "\n"
    "function update(self, dt)\n"
    "  self.s = (self.s + self.speed * dt) % (8 * self.half)\n"
    "  self.driven = self.driven + self.speed * dt\n"
    "  local x, z, dx, dz = along(self, self.s)\n"
    "  local t = self.entity.Transform\n"
    "  t.translation = vec3(x, 0, z)\n"
    "  t.rotation = quat.axis_angle(UP, math.atan(-dx, -dz)) -- the model's front is -Z\n"
    "end\n"
    "\n"
    "function final(self)\n"
    "  if self.report then\n"
    "    local p = self.entity.Transform.translation\n"
    "    rill.log(string.format('%s drove %.1f m, now %.1f m from where it started',\n"
    "                           self.entity.name, self.driven, p:distance(self.from)))\n"
    "  end\n"
    "end\n";

static const char DOOR_LUA[] =
    "-- scripts/door.lua: a door that swings open about its hinge (the entity's origin) while the\n"
    "-- active camera is within `radius` metres of `center`, and shuts when it leaves.\n"
    "properties = { center = vec3(0, 0, 0), radius = 60, open_angle = 1.5, speed = 0.8 }\n"
    "\n"
    "function init(self)\n"
    "  self.closed = self.entity.Transform.rotation\n"
    "  self.angle = 0\n"
    "  self.open = false\n"
    "end\n"
    "\n"
    "function update(self, dt)\n"
    "  local cam = rill.camera()\n"
    "  local near = cam ~= nil and\n"
    "    cam.Transform.translation:distance(self.center) < self.radius\n"
    "  if near ~= self.open then\n"
    "    self.open = near\n"
    "    rill.log(self.entity.name .. (near and ' opens' or ' closes'))\n"
    "  end\n"
    "  local target = near and self.open_angle or 0\n"
    "  local step = self.speed * dt\n"
    "  if math.abs(target - self.angle) <= step then self.angle = target\n"
    "  elseif target > self.angle then self.angle = self.angle + step\n"
    "  else self.angle = self.angle - step end\n"
    "  self.entity.Transform.rotation =\n"
    "    self.closed * quat.axis_angle(vec3(0, 1, 0), self.angle)\n"
    "end\n";

static const char DISTRICT_LOADER_LUA[] =
    "-- scripts/district_loader.lua: press `key` to load an extra district into the city's empty\n"
    "-- lot (streamed and budgeted like any scene load, added to the city), again to unload it.\n"
    "properties = { key = 'l', scene = 'districts/district_1.rsn', position = vec3(0, 0, 0) }\n"
    "\n"
    "function update(self, dt)\n"
    "  if not rill.key_pressed(self.key) then return end\n"
    "  if self.district then\n"
    "    rill.unload_scene(self.district)\n"
    "    self.district = nil\n"
    "    rill.log('extra district unloaded')\n"
    "  else\n"
    "    self.district = rill.load_scene(self.scene,\n"
    "      { additive = true, position = self.position, name = 'Extra district' })\n"
    "    rill.log('loading an extra district at ' .. tostring(self.position))\n"
    "  end\n"
    "end\n"
    "\n"
    "-- Every scene load sends these events (the city's streamed districts too): ours is the one\n"
    "-- whose scene is our handle.\n"
    "function on_event(self, ev)\n"
    "  if not self.district or ev.scene ~= self.district then return end\n"
    "  if ev.type == 'scene_loaded' then\n"
    "    rill.log(string.format('extra district loaded: %d entities', ev.entities))\n"
    "  elseif ev.type == 'scene_failed' then\n"
    "    rill.log('extra district failed: ' .. tostring(ev.scene:error()))\n"
    "  end\n"
    "end\n";

typedef struct script_file {
    const char *path, *text;
} script_file;

static const script_file FILES[] = {
    {"scripts/day_night.lua", DAY_NIGHT_LUA},
    {"scripts/car.lua", CAR_LUA},
    {"scripts/door.lua", DOOR_LUA},
    {"scripts/district_loader.lua", DISTRICT_LOADER_LUA},
};

static rill_result write_files(const char *project_dir, rill_error *err) {
    char path[1200];
    snprintf(path, sizeof path, "%s/scripts", project_dir);
    rill_dir_remove_all(path, NULL);
    rill_result r = rill_dir_create_all(path, err);
    for (uint32_t i = 0; r == RILL_OK && i < RILL_COUNTOF(FILES); i++) {
        /* Checked as `rill export` will check them: a slip here fails the generator. */
        r = rill_scripts_check_source(FILES[i].path, FILES[i].text, strlen(FILES[i].text), err);
        int n = snprintf(path, sizeof path, "%s/%s", project_dir, FILES[i].path);
        if (r == RILL_OK && (n < 0 || (size_t)n >= sizeof path)) {
            r = rill_error_set(err, RILL_ERR_LIMIT, "%s: path too long", project_dir);
        }
        if (r == RILL_OK) {
            r = rill_file_write_all(path, FILES[i].text, strlen(FILES[i].text), err);
        }
    }
    return r;
}

static void add_script(rill_world *w, rill_entity e, const char *path, const char *props) {
    rill_script sc = {rill_intern(path), props ? rill_intern(props) : NULL};
    rill_world_add(w, e, rill_script_register(w), &sc);
}

static rill_entity spawn(rill_world *w, rill_entity parent, const char *name, float x, float z,
                         float yaw) {
    rill_entity e = rill_world_spawn(w);
    rill_transform t = rill_transform_identity();
    t.translation[0] = x, t.translation[2] = z;
    t.rotation[1] = sinf(0.5f * yaw), t.rotation[3] = cosf(0.5f * yaw);
    rill_world_set_transform(w, e, &t);
    rill_world_set_name(w, e, name);
    if (parent) {
        rill_world_set_parent(w, e, parent);
    }
    return e;
}

static void add_model(rill_world *w, rill_entity e, const char *path) {
    rill_model_ref m = {.path = rill_intern(path)};
    rill_world_add(w, e, rill_world_find_component(w, "Model"), &m);
}

/* Block centres (relative to the tower's crossing) whose loops pass no landmark and not the
 * street where the falling cars land. */
static const float CAR_BLOCKS[][2] = {{75, 25},  {75, -25}, {-25, 75},  {125, 25},
                                      {-75, 25}, {25, -75}, {-25, -75}, {-75, -25}};

static uint32_t add_cars(rill_world *w, const rill_demo_layout *l) {
    float edge = 100.0f * (float)l->side;
    uint32_t n = 0;
    for (uint32_t i = 0; i < RILL_COUNTOF(CAR_BLOCKS); i++) {
        float cx = l->offset + CAR_BLOCKS[i][0], cz = l->offset + CAR_BLOCKS[i][1];
        if (fabsf(cx) + 27.0f > edge || fabsf(cz) + 27.0f > edge) {
            continue; /* off the city's ground */
        }
        char name[32], props[160];
        snprintf(name, sizeof name, "Car %u", n + 1u);
        snprintf(props, sizeof props, "cx = %g, cz = %g, speed = %g, start = %g%s", (double)cx,
                 (double)cz, 8.0 + 1.5 * (double)(i % 3u), 0.13 * (double)i,
                 n == 0 ? ", report = true" : "");
        rill_entity car = spawn(w, 0, name, cx, cz + 26.0f, 0.0f);
        add_model(w, car, "models/car.glb");
        add_script(w, car, "scripts/car.lua", props);
        n++;
    }
    return n;
}

/* The city gate (NM_Gate, its pillars' inner faces at x = -8 and 8) gets two 8 m doors hinged on
 * the pillars; the right one is turned half a turn so that both open northwards. */
static uint32_t add_gate_doors(rill_world *w) {
    rill_entity gate = rill_world_find_by_name(w, "NM_Gate");
    if (!gate) {
        return 0;
    }
    const rill_transform *gt = rill_world_get(w, gate, rill_world_builtin(w)->transform);
    for (int side = 0; side < 2; side++) {
        rill_entity d = spawn(w, gate, side ? "Gate door right" : "Gate door left",
                              side ? 8.0f : -8.0f, 0.0f, side ? 3.14159265f : 0.0f);
        rill_transform *t = rill_world_transform_mut(w, d);
        t->scale[0] = 8.0f, t->scale[1] = 23.5f, t->scale[2] = 0.8f;
        add_model(w, d, "models/door.glb");
        char props[160];
        snprintf(props, sizeof props, "center = vec3(%g, 0, %g), open_angle = %s",
                 gt ? (double)gt->translation[0] : 0.0, gt ? (double)gt->translation[2] : 0.0,
                 side ? "1.45" : "-1.45");
        add_script(w, d, "scripts/door.lua", props);
    }
    return 2;
}

rill_result rill_demo_add_life(rill_world *w, const char *project_dir, const rill_demo_layout *l,
                               uint32_t *out_count, rill_error *err) {
    rill_result r = write_files(project_dir, err);
    if (r != RILL_OK) {
        return r;
    }
    uint32_t n = 0;
    rill_entity sun = rill_world_find_by_name(w, "Sun");
    if (sun) {
        add_script(w, sun, "scripts/day_night.lua", NULL);
    }
    n += add_cars(w, l);
    n += add_gate_doors(w);
    /* The extra district goes into the first empty cell of the city's square grid (inside the
     * flat ground), else just east of the city. */
    uint32_t cells = l->side * l->side, i = l->districts;
    float half = 0.5f * (float)(l->side - 1u), x, z;
    if (i < cells) {
        x = ((float)(i % l->side) - half) * 200.0f;
        z = ((float)(i / l->side) - half) * 200.0f;
    } else {
        x = (half + 1.0f) * 200.0f;
        z = -half * 200.0f;
    }
    rill_entity loader = spawn(w, 0, "District loader", 0.0f, 0.0f, 0.0f);
    char props[160];
    snprintf(props, sizeof props, "key = 'l', position = vec3(%g, 0, %g)", (double)x, (double)z);
    add_script(w, loader, "scripts/district_loader.lua", props);
    n++;
    if (out_count) {
        *out_count += n;
    }
    return RILL_OK;
}
