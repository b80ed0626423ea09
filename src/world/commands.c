/* commands.c: deferred command buffers. Structural changes recorded here are applied later, in
 * order, so systems can spawn, despawn and reparent while they iterate a query. New entities are
 * named by placeholders (index = spawn number, generation 0: never a live entity) that later
 * commands of the same buffer may use; apply maps them to real entities. */
#include "world_internal.h"

#include <string.h>

typedef enum cmd_op {
    CMD_SPAWN = 1,
    CMD_DESPAWN,
    CMD_DESPAWN_RECURSIVE,
    CMD_ADD,
    CMD_ADD_DEFAULT,
    CMD_REMOVE,
    CMD_SET_PARENT,
} cmd_op;

typedef struct cmd {
    uint32_t op;
    rill_component comp;
    rill_entity a;
    rill_entity b;
    uint32_t data_offset; /* into bytes, for CMD_ADD */
    uint32_t placeholder; /* for CMD_SPAWN: its number (1-based) */
} cmd;

struct rill_commands {
    rill_world *world;
    RILL_ARRAY(cmd) cmds;
    RILL_ARRAY(uint8_t) bytes;        /* component payloads, 16-byte aligned */
    RILL_ARRAY(rill_entity) resolved; /* placeholder n -> entity, after apply */
    uint32_t spawned;                 /* placeholders handed out since the last clear */
    bool applied;                     /* resolved holds the last apply's mapping */
    bool applying;                    /* inside rill_commands_apply: recording is refused */
};

rill_commands *rill_commands_create(rill_world *world) {
    if (world == NULL) {
        return NULL;
    }
    rill_commands *c = rill_calloc_tagged(1, sizeof(*c), RILL_MEM_WORLD);
    if (c != NULL) {
        c->world = world;
    }
    return c;
}

void rill_commands_destroy(rill_commands *cmds) {
    if (cmds == NULL) {
        return;
    }
    rill_array_free(&cmds->cmds);
    rill_array_free(&cmds->bytes);
    rill_array_free(&cmds->resolved);
    rill_free(cmds);
}

void rill_commands_clear(rill_commands *cmds) {
    if (cmds == NULL) {
        return;
    }
    rill_array_clear(&cmds->cmds);
    rill_array_clear(&cmds->bytes);
    rill_array_clear(&cmds->resolved);
    cmds->spawned = 0;
    cmds->applied = false;
}

uint32_t rill_commands_len(const rill_commands *cmds) {
    return cmds ? cmds->cmds.len : 0;
}

/* The first record after an apply starts a new batch: the old placeholder mapping goes. */
static void begin_batch(rill_commands *cmds) {
    if (cmds->applied) {
        rill_array_clear(&cmds->resolved);
        cmds->spawned = 0;
        cmds->applied = false;
    }
}

static bool record(rill_commands *cmds, cmd c) {
    if (cmds->applying) {
        /* A hook recording into the buffer being applied would move the payloads under the add in
         * progress; refuse it loudly instead. */
        RILL_LOG_ERROR("world", "commands: cannot record into a buffer while it is being applied");
        return false;
    }
    begin_batch(cmds);
    if (!rill_array_push(&cmds->cmds, c)) {
        RILL_LOG_ERROR("world", "commands: out of memory");
        return false;
    }
    return true;
}

static bool is_placeholder(rill_entity e) {
    return e != RILL_ENTITY_NULL && RILL_ENTITY_GENERATION(e) == 0;
}

rill_entity rill_commands_spawn(rill_commands *cmds) {
    if (cmds == NULL || cmds->applying) {
        return RILL_ENTITY_NULL;
    }
    begin_batch(cmds);
    uint32_t n = cmds->spawned + 1u;
    if (!record(cmds, (cmd){.op = CMD_SPAWN, .placeholder = n})) {
        return RILL_ENTITY_NULL;
    }
    cmds->spawned = n;
    return RILL_ENTITY_MAKE(n, 0);
}

void rill_commands_despawn(rill_commands *cmds, rill_entity e) {
    if (cmds != NULL && e != RILL_ENTITY_NULL) {
        record(cmds, (cmd){.op = CMD_DESPAWN, .a = e});
    }
}

void rill_commands_despawn_recursive(rill_commands *cmds, rill_entity e) {
    if (cmds != NULL && e != RILL_ENTITY_NULL) {
        record(cmds, (cmd){.op = CMD_DESPAWN_RECURSIVE, .a = e});
    }
}

bool rill_commands_add(rill_commands *cmds, rill_entity e, rill_component comp, const void *data) {
    if (cmds == NULL || e == RILL_ENTITY_NULL) {
        return false;
    }
    const rill_type_desc *t = rill_world_component_type(cmds->world, comp);
    if (t == NULL || (t->flags & RILL_TYPE_MANAGED)) {
        return false;
    }
    if (data == NULL) {
        return record(cmds, (cmd){.op = CMD_ADD_DEFAULT, .comp = comp, .a = e});
    }
    if (cmds->applying) {
        return record(cmds, (cmd){0}); /* logs and refuses */
    }
    uint32_t off = RILL_ALIGN_UP(cmds->bytes.len, 16u);
    uint64_t end = (uint64_t)off + t->size;
    if (end > UINT32_MAX || !rill_array_reserve(&cmds->bytes, (uint32_t)end)) {
        RILL_LOG_ERROR("world", "commands: out of memory");
        return false;
    }
    memcpy(cmds->bytes.data + off, data, t->size);
    uint32_t old_len = cmds->bytes.len;
    cmds->bytes.len = (uint32_t)end;
    if (!record(cmds, (cmd){.op = CMD_ADD, .comp = comp, .a = e, .data_offset = off})) {
        cmds->bytes.len = old_len;
        return false;
    }
    return true;
}

void rill_commands_remove(rill_commands *cmds, rill_entity e, rill_component comp) {
    if (cmds != NULL && e != RILL_ENTITY_NULL) {
        record(cmds, (cmd){.op = CMD_REMOVE, .comp = comp, .a = e});
    }
}

void rill_commands_set_parent(rill_commands *cmds, rill_entity child, rill_entity parent) {
    if (cmds != NULL && child != RILL_ENTITY_NULL) {
        record(cmds, (cmd){.op = CMD_SET_PARENT, .a = child, .b = parent});
    }
}

rill_entity rill_commands_resolve(const rill_commands *cmds, rill_entity e) {
    if (cmds == NULL || !is_placeholder(e)) {
        return e;
    }
    uint32_t n = RILL_ENTITY_INDEX(e);
    return (n >= 1 && n <= cmds->resolved.len) ? cmds->resolved.data[n - 1u] : RILL_ENTITY_NULL;
}

uint32_t rill_commands_apply(rill_world *world, rill_commands *cmds) {
    if (world == NULL || cmds == NULL || world != cmds->world) {
        return 0;
    }
    if (cmds->applied || cmds->applying) {
        return 0; /* nothing recorded since the last apply, or a hook re-entering apply */
    }
    rill_array_clear(&cmds->resolved);
    if (!rill_array_reserve(&cmds->resolved, cmds->spawned)) {
        RILL_LOG_ERROR("world", "commands: out of memory at apply");
        return 0;
    }
    memset(cmds->resolved.data, 0, sizeof(rill_entity) * cmds->spawned);
    cmds->resolved.len = cmds->spawned;
    uint32_t done = 0;
    cmds->applying = true;
    for (uint32_t i = 0; i < cmds->cmds.len; i++) {
        cmd c = cmds->cmds.data[i];
        rill_entity a = rill_commands_resolve(cmds, c.a);
        rill_entity b = rill_commands_resolve(cmds, c.b);
        bool ok = false;
        switch (c.op) {
        case CMD_SPAWN:
            if (c.placeholder >= 1 && c.placeholder <= cmds->resolved.len) {
                cmds->resolved.data[c.placeholder - 1u] = rill_world_spawn(world);
                ok = cmds->resolved.data[c.placeholder - 1u] != RILL_ENTITY_NULL;
            }
            break;
        case CMD_DESPAWN:
            ok = rill_world_despawn(world, a);
            break;
        case CMD_DESPAWN_RECURSIVE:
            ok = rill_world_despawn_recursive(world, a) > 0;
            break;
        case CMD_ADD:
            ok = rill_world_add(world, a, c.comp, cmds->bytes.data + c.data_offset) != NULL;
            break;
        case CMD_ADD_DEFAULT:
            ok = rill_world_add(world, a, c.comp, NULL) != NULL;
            break;
        case CMD_REMOVE:
            ok = rill_world_remove(world, a, c.comp);
            break;
        case CMD_SET_PARENT:
            ok = (c.b == RILL_ENTITY_NULL || b != RILL_ENTITY_NULL) &&
                 rill_world_set_parent(world, a, b);
            break;
        default:
            break;
        }
        done += ok ? 1u : 0u;
    }
    cmds->applying = false;
    rill_array_clear(&cmds->cmds);
    rill_array_clear(&cmds->bytes);
    cmds->applied = true;
    return done;
}
