/* intern.c: thread-safe string interning with stable pointers.
 *
 * Strings are copied into arena chunks that are never moved or freed before the interner is
 * destroyed, so a returned pointer stays valid for the interner's whole life. A small open-
 * addressing table of (hash, pointer, length) finds existing copies; one mutex guards both. */
#include "rill/base.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

/* 64 KiB chunks hold thousands of typical asset names; a longer string gets a chunk of its own. */
#define INTERN_CHUNK_SIZE (64u * 1024u)

typedef struct intern_chunk {
    struct intern_chunk *next;
    size_t used;
    size_t cap;
    char bytes[]; /* cap bytes */
} intern_chunk;

typedef struct intern_entry {
    uint64_t hash;
    const char *str; /* NULL = empty slot */
    size_t len;
} intern_entry;

struct rill_interner {
    rill_mutex lock;
    intern_chunk *chunks; /* newest first */
    intern_entry *table;  /* cap entries, power of two */
    uint32_t cap;
    uint32_t len;
};

rill_interner *rill_interner_create(void) {
    rill_interner *in = rill_calloc_tagged(1, sizeof(*in), RILL_MEM_CONTAINER);
    if (in == NULL) {
        return NULL;
    }
    rill_mutex_init(&in->lock);
    return in;
}

void rill_interner_destroy(rill_interner *in) {
    if (in == NULL) {
        return;
    }
    intern_chunk *c = in->chunks;
    while (c != NULL) {
        intern_chunk *next = c->next;
        rill_free(c);
        c = next;
    }
    rill_free(in->table);
    rill_mutex_destroy(&in->lock);
    rill_free(in);
}

static bool intern_grow_table(rill_interner *in) {
    uint32_t new_cap = in->cap != 0 ? in->cap * 2u : 256u;
    if (new_cap == 0) {
        return false;
    }
    intern_entry *t = rill_calloc_tagged(new_cap, sizeof(intern_entry), RILL_MEM_CONTAINER);
    if (t == NULL) {
        return false;
    }
    for (uint32_t i = 0; i < in->cap; ++i) {
        if (in->table[i].str != NULL) {
            uint32_t j = (uint32_t)in->table[i].hash & (new_cap - 1u);
            while (t[j].str != NULL) {
                j = (j + 1u) & (new_cap - 1u);
            }
            t[j] = in->table[i];
        }
    }
    rill_free(in->table);
    in->table = t;
    in->cap = new_cap;
    return true;
}

/* Copies s[0..len) plus a NUL into the arena; NULL when out of memory. */
static const char *intern_store(rill_interner *in, const char *s, size_t len) {
    size_t need = len + 1u;
    intern_chunk *c = in->chunks;
    if (c == NULL || c->cap - c->used < need) {
        size_t cap = need > INTERN_CHUNK_SIZE ? need : INTERN_CHUNK_SIZE;
        c = rill_malloc_tagged(sizeof(intern_chunk) + cap, RILL_MEM_CONTAINER);
        if (c == NULL) {
            return NULL;
        }
        c->used = 0;
        c->cap = cap;
        /* An oversized chunk goes second so the current chunk keeps taking small strings. */
        if (need > INTERN_CHUNK_SIZE && in->chunks != NULL) {
            c->next = in->chunks->next;
            in->chunks->next = c;
        } else {
            c->next = in->chunks;
            in->chunks = c;
        }
    }
    char *dst = c->bytes + c->used;
    memcpy(dst, s, len);
    dst[len] = '\0';
    c->used += need;
    return dst;
}

const char *rill_interner_get(rill_interner *in, const char *s, size_t len) {
    if (in == NULL || (s == NULL && len != 0)) {
        return NULL;
    }
    if (s == NULL) {
        s = "";
    }
    uint64_t hash = rill_hash64(s, len);
    const char *result = NULL;
    rill_mutex_lock(&in->lock);
    if (in->cap != 0) {
        uint32_t mask = in->cap - 1u;
        for (uint32_t i = (uint32_t)hash & mask; in->table[i].str != NULL; i = (i + 1u) & mask) {
            const intern_entry *e = &in->table[i];
            if (e->hash == hash && e->len == len && memcmp(e->str, s, len) == 0) {
                result = e->str;
                break;
            }
        }
    }
    if (result == NULL) {
        /* Keep the table at most half full: probes stay short and a free slot always exists. */
        bool room = ((uint64_t)in->len + 1u) * 2u <= in->cap || intern_grow_table(in);
        result = room ? intern_store(in, s, len) : NULL;
        if (result != NULL) {
            uint32_t mask = in->cap - 1u;
            uint32_t i = (uint32_t)hash & mask;
            while (in->table[i].str != NULL) {
                i = (i + 1u) & mask;
            }
            in->table[i] = (intern_entry){hash, result, len};
            in->len++;
        }
    }
    rill_mutex_unlock(&in->lock);
    return result;
}

/* >>global interner */

static pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(rill_interner *) global_interner; /* zero = not created yet */

static rill_interner *global_get(void) {
    rill_interner *in = atomic_load_explicit(&global_interner, memory_order_acquire);
    if (in != NULL) {
        return in;
    }
    pthread_mutex_lock(&global_lock);
    in = atomic_load_explicit(&global_interner, memory_order_relaxed);
    if (in == NULL) {
        in = rill_interner_create();
        atomic_store_explicit(&global_interner, in, memory_order_release);
    }
    pthread_mutex_unlock(&global_lock);
    return in;
}

const char *rill_intern(const char *s) {
    if (s == NULL) {
        return NULL;
    }
    return rill_intern_n(s, strlen(s));
}

const char *rill_intern_n(const char *s, size_t len) {
    return rill_interner_get(global_get(), s, len);
}

void rill_intern_shutdown(void) {
    pthread_mutex_lock(&global_lock);
    rill_interner *in = atomic_exchange(&global_interner, NULL);
    pthread_mutex_unlock(&global_lock);
    rill_interner_destroy(in);
}
