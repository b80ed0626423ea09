/* world_test.h: what the world tests share: their test component, a tag that remembers which
 * entity it was added to (so storage moves can be checked against the dense arrays), and the
 * sparse-set check. Included after cmocka.h (check_set asserts). */
#ifndef RILL_TESTS_WORLD_TEST_H
#define RILL_TESTS_WORLD_TEST_H

#include "rill/world.h"

typedef struct tag {
    rill_entity owner;
    int32_t value;
} tag;

static inline rill_component register_tag(rill_world *w, const char *name) {
    static const rill_field fields[] = {RILL_FIELD(tag, owner, ENTITY),
                                        RILL_FIELD(tag, value, I32)};
    rill_type_desc d = {.name = name, RILL_TYPE_LAYOUT(tag), .fields = fields, .field_count = 2};
    return rill_world_register_component(w, &d);
}

/* Checks the sparse set invariants through the public API: every dense element is alive, owns
 * exactly the data at its dense position, and the count matches a scan. */
static inline void check_set(rill_world *w, rill_component c) {
    const rill_entity *ents;
    void *data;
    uint32_t n = rill_world_component_dense(w, c, &ents, &data);
    uint32_t stride = rill_world_component_type(w, c)->size;
    for (uint32_t i = 0; i < n; i++) {
        assert_true(rill_world_is_alive(w, ents[i]));
        assert_ptr_equal(rill_world_get(w, ents[i], c), (char *)data + (size_t)i * stride);
    }
    uint32_t scanned = 0;
    rill_entity e;
    for (uint32_t it = 0; rill_world_entity_next(w, &it, &e);) {
        scanned += rill_world_has(w, e, c) ? 1u : 0u;
    }
    assert_int_equal(scanned, n);
    assert_int_equal(rill_world_component_len(w, c), n);
}

#endif
