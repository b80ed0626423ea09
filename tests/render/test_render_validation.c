/* test_render_validation.c: proves that the validation hook the GPU tests rely on really counts
 * messages: a deliberately invalid image (no usage bits) must raise the counter. Without this
 * check a broken messenger would make every "no validation messages" assertion pass vacuously. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "gpu.h"
#include "rill/render.h"

static void quiet(rill_log_level level, const char *module, const char *msg, void *user) {
    (void)level, (void)module, (void)msg, (void)user;
}

static void test_validation_messages_are_counted(void **state) {
    (void)state;
    rill__gpu_desc d;
    memset(&d, 0, sizeof(d));
    d.validation = 1;
    rill__gpu *gpu = NULL;
    rill_error err = {0};
    if (rill__gpu_create(&d, &gpu, &err) != RILL_OK) {
        fail_msg("no Vulkan device: %s", err.msg);
    }
    assert_true(rill__gpu_get_caps(gpu)->validation);
    assert_int_equal(rill__gpu_validation_messages(gpu), 0);
    rill_log_set_sink(quiet, NULL); /* the expected error is not news */
    rill__img_desc bad = {4, 4, 1, 1, RILL_RG_FORMAT_RGBA8_UNORM, 0 /* no usage: invalid */, "bad"};
    rill__img *img = rill__img_create(gpu, &bad, &err);
    rill_log_set_sink(NULL, NULL);
    assert_true(rill__gpu_validation_messages(gpu) >= 1);
    rill__img_destroy(gpu, img);
    rill__gpu_destroy(gpu);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_validation_messages_are_counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
