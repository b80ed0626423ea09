/* test_gltf_links.c: a glTF read from disk resolves its external buffers inside the model's
 * folder only: a buffer that is a symbolic link out of it is refused (and its bytes never reach
 * a message), one that is a real file beside the model loads, and links_inside_root follows a
 * link that stays inside. */
#include "rill_test.h"

#include "rill/formats/gltf.h"

#include <string.h>
#include <unistd.h>

/* A triangle whose positions live in the external file `uri`. */
static void write_model(const char *dir, const char *uri) {
    char json[1024];
    int n = snprintf(json, sizeof(json),
                     "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":36,"
                     "\"uri\":\"%s\"}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],"
                     "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,"
                     "\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[1,1,0]}],\"meshes\":[{"
                     "\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}]}",
                     uri);
    rill_test_write_file(dir, "model/m.gltf", json, (size_t)n);
}

static void test_external_buffer_links(void **state) {
    (void)state;
    char dir[512], model[600], lnk[700], outside[700];
    rill_test_tmpdir(dir, sizeof(dir), "gltf_links");
    const float tri[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    rill_test_write_file(dir, "model/real.bin", tri, sizeof(tri));
    rill_test_write_file(dir, "SECRET.bin", "SECRET-SECRET-SECRET-SECRET-SECRET-S", 36);
    rill_test_path(model, sizeof(model), dir, "model/m.gltf");
    rill_test_path(outside, sizeof(outside), dir, "SECRET.bin");
    rill_test_path(lnk, sizeof(lnk), dir, "model/out.bin");
    assert_int_equal(symlink(outside, lnk), 0);
    rill_test_path(lnk, sizeof(lnk), dir, "model/alias.bin");
    assert_int_equal(symlink("real.bin", lnk), 0);
    rill_gltf_model *m = NULL;
    rill_error err = {0};

    write_model(dir, "real.bin");
    assert_int_equal(rill_gltf_read_file(model, NULL, &m, &err), RILL_OK);
    rill_gltf_model_free(m);

    write_model(dir, "out.bin");
    assert_int_equal(rill_gltf_read_file(model, NULL, &m, &err), RILL_ERR_LIMIT);
    assert_null(m);
    assert_non_null(strstr(err.msg, "is a symbolic link"));
    assert_null(strstr(err.msg, "SECRET-"));

    write_model(dir, "alias.bin"); /* a link inside: refused by default, followed when allowed */
    assert_int_equal(rill_gltf_read_file(model, NULL, &m, &err), RILL_ERR_LIMIT);
    rill_limits l = {0};
    l.links_inside_root = true;
    rill_limits_set(&l);
    assert_int_equal(rill_gltf_read_file(model, NULL, &m, &err), RILL_OK);
    rill_gltf_model_free(m);
    write_model(dir, "out.bin"); /* still refused: it leaves the folder */
    assert_int_equal(rill_gltf_read_file(model, NULL, &m, &err), RILL_ERR_LIMIT);
    assert_non_null(strstr(err.msg, "leads outside"));
    rill_limits_set(NULL);
    rill_test_tmpdir_remove(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_external_buffer_links),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
