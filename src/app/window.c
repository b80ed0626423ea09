/* window.c: rill_window, a GLFW window for showing the renderer's output, with the input state
 * (keys, mouse buttons, cursor motion, scroll) kept from GLFW's callbacks and the gamepads read
 * at each poll (GLFW's gamepad API: joysticks with a standard mapping). GLFW is initialized
 * when the window opens and terminated when it closes, so a process opens one window at a time.
 */
#include "rill/app.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <GLFW/glfw3.h>

#define LOGM "app"

_Static_assert(GLFW_GAMEPAD_BUTTON_LAST + 1 == RILL_GAMEPAD_BUTTON_COUNT, "gamepad buttons");
_Static_assert(GLFW_GAMEPAD_AXIS_LAST + 1 == RILL_GAMEPAD_AXIS_COUNT, "gamepad axes");

struct rill_window {
    GLFWwindow *glfw;
    rill_input input;
    /* Edges seen by the callbacks since the last poll; moved into input.*_pressed by the poll. */
    bool key_edge[RILL_KEY_COUNT];
    bool mouse_edge[RILL_MOUSE_BUTTON_COUNT];
    double scroll_acc;
    bool have_cursor;
};

static bool window_open;
static char glfw_error[256];

static void on_glfw_error(int code, const char *msg) {
    (void)code;
    size_t n = strlen(msg);
    if (n >= sizeof(glfw_error)) {
        n = sizeof(glfw_error) - 1u;
    }
    memcpy(glfw_error, msg, n);
    glfw_error[n] = 0;
}

static void on_key(GLFWwindow *gw, int key, int scancode, int action, int mods) {
    (void)scancode, (void)mods;
    rill_window *w = glfwGetWindowUserPointer(gw);
    if (!w || key < 0 || key >= RILL_KEY_COUNT) {
        return;
    }
    if (action == GLFW_PRESS) {
        w->input.key_down[key] = true;
        w->key_edge[key] = true;
    } else if (action == GLFW_RELEASE) {
        w->input.key_down[key] = false;
    }
}

static void on_mouse_button(GLFWwindow *gw, int button, int action, int mods) {
    (void)mods;
    rill_window *w = glfwGetWindowUserPointer(gw);
    if (!w || button < 0 || button >= RILL_MOUSE_BUTTON_COUNT) {
        return;
    }
    if (action == GLFW_PRESS) {
        w->input.mouse_down[button] = true;
        w->mouse_edge[button] = true;
    } else if (action == GLFW_RELEASE) {
        w->input.mouse_down[button] = false;
    }
}

static void on_scroll(GLFWwindow *gw, double dx, double dy) {
    (void)dx;
    rill_window *w = glfwGetWindowUserPointer(gw);
    if (w) {
        w->scroll_acc += dy;
    }
}

bool rill_window_display_available(void) {
    const char *x = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
    return (x && x[0]) || (wl && wl[0]);
}

static rill_result window_create(const rill_window_desc *desc, rill_window **out, rill_error *err) {
    rill_window_desc d = desc ? *desc : (rill_window_desc){0};
    if (!d.title) {
        d.title = "Rill";
    }
    if (!d.width) {
        d.width = 1280;
    }
    if (!d.height) {
        d.height = 720;
    }
    if (d.width > 16384 || d.height > 16384) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "window: size %ux%u is too large",
                              d.width, d.height);
    }
    if (window_open) {
        return rill_error_set(err, RILL_ERR_BUSY, "window: a window is already open");
    }
    if (!rill_window_display_available()) {
        return rill_error_set(err, RILL_ERR_NO_DEVICE,
                              "window: no display (neither DISPLAY nor WAYLAND_DISPLAY is set)");
    }
    glfw_error[0] = 0;
    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit()) {
        return rill_error_set(err, RILL_ERR_NO_DEVICE, "window: GLFW could not start: %s",
                              glfw_error[0] ? glfw_error : "unknown reason");
    }
    rill_window *w = rill_calloc(1, sizeof(*w));
    if (!w) {
        glfwTerminate();
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "window: out of memory");
    }
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
    glfwWindowHint(GLFW_RESIZABLE, d.fixed_size ? GLFW_FALSE : GLFW_TRUE);
    glfwWindowHint(GLFW_VISIBLE, d.hidden ? GLFW_FALSE : GLFW_TRUE);
    /* Full screen takes the monitor's current mode (no mode switch: the desktop's resolution,
     * which every monitor supports), so the swapchain is the monitor's size. */
    GLFWmonitor *monitor = d.fullscreen ? glfwGetPrimaryMonitor() : NULL;
    const GLFWvidmode *mode = monitor ? glfwGetVideoMode(monitor) : NULL;
    if (d.fullscreen && !mode) {
        RILL_LOG_WARN(LOGM, "window: no monitor to go full screen on; opening a %ux%u window",
                      d.width, d.height);
        monitor = NULL;
    }
    if (mode) {
        d.width = (uint32_t)mode->width;
        d.height = (uint32_t)mode->height;
        glfwWindowHint(GLFW_REFRESH_RATE, mode->refreshRate);
    }
    w->glfw = glfwCreateWindow((int)d.width, (int)d.height, d.title, monitor, NULL);
    if (!w->glfw) {
        rill_free(w);
        glfwTerminate();
        return rill_error_set(err, RILL_ERR_NO_DEVICE, "window: could not open a window: %s",
                              glfw_error[0] ? glfw_error : "unknown reason");
    }
    glfwSetWindowUserPointer(w->glfw, w);
    glfwSetKeyCallback(w->glfw, on_key);
    glfwSetMouseButtonCallback(w->glfw, on_mouse_button);
    glfwSetScrollCallback(w->glfw, on_scroll);
    window_open = true;
    *out = w;
    return RILL_OK;
}

rill_window *rill_window_create(const rill_window_desc *desc, rill_error *err) {
    rill_window *w = NULL;
    if (RILL_DESC_CHECK(desc, "rill_window_create", err) != RILL_OK ||
        window_create(desc, &w, err) != RILL_OK) {
        return NULL;
    }
    return w;
}

void rill_window_destroy(rill_window *w) {
    if (!w) {
        return;
    }
    glfwDestroyWindow(w->glfw);
    glfwTerminate();
    window_open = false;
    rill_free(w);
}

void *rill_window_glfw(const rill_window *w) {
    return w ? w->glfw : NULL;
}

/* Gamepad slots from GLFW's joysticks that have a standard mapping, in joystick order; a slot
 * with none is all neutral. A button is pressed in the poll that first sees it down. */
static void poll_gamepads(rill_window *w) {
    int slot = 0;
    for (int jid = GLFW_JOYSTICK_1; jid <= GLFW_JOYSTICK_LAST && slot < RILL_GAMEPAD_MAX; jid++) {
        GLFWgamepadstate st;
        if (!glfwJoystickIsGamepad(jid) || !glfwGetGamepadState(jid, &st)) {
            continue;
        }
        rill_gamepad *g = &w->input.gamepads[slot++];
        for (int b = 0; b < RILL_GAMEPAD_BUTTON_COUNT; b++) {
            bool down = st.buttons[b] == GLFW_PRESS;
            g->button_pressed[b] = down && !(g->connected && g->button_down[b]);
            g->button_down[b] = down;
        }
        for (int a = 0; a < RILL_GAMEPAD_AXIS_COUNT; a++) {
            float v = st.axes[a];
            if (a == GLFW_GAMEPAD_AXIS_LEFT_TRIGGER || a == GLFW_GAMEPAD_AXIS_RIGHT_TRIGGER) {
                v = 0.5f * (v + 1.0f);
            }
            g->axis[a] = isfinite(v) ? RILL_CLAMP(v, -1.0f, 1.0f) : 0.0f;
        }
        g->connected = true;
    }
    for (; slot < RILL_GAMEPAD_MAX; slot++) {
        memset(&w->input.gamepads[slot], 0, sizeof(rill_gamepad));
    }
}

void rill_window_poll(rill_window *w) {
    if (!w) {
        return;
    }
    memset(w->key_edge, 0, sizeof(w->key_edge));
    memset(w->mouse_edge, 0, sizeof(w->mouse_edge));
    w->scroll_acc = 0.0;
    glfwPollEvents();
    memcpy(w->input.key_pressed, w->key_edge, sizeof(w->key_edge));
    memcpy(w->input.mouse_pressed, w->mouse_edge, sizeof(w->mouse_edge));
    w->input.scroll_y = w->scroll_acc;
    double x = 0.0, y = 0.0;
    glfwGetCursorPos(w->glfw, &x, &y);
    w->input.mouse_dx = w->have_cursor ? x - w->input.mouse_x : 0.0;
    w->input.mouse_dy = w->have_cursor ? y - w->input.mouse_y : 0.0;
    w->input.mouse_x = x;
    w->input.mouse_y = y;
    w->have_cursor = true;
    poll_gamepads(w);
}

const rill_input *rill_window_input(const rill_window *w) {
    return w ? &w->input : NULL;
}

bool rill_window_should_close(const rill_window *w) {
    return !w || glfwWindowShouldClose(w->glfw);
}

void rill_window_request_close(rill_window *w) {
    if (w) {
        glfwSetWindowShouldClose(w->glfw, GLFW_TRUE);
    }
}

void rill_window_framebuffer_size(const rill_window *w, uint32_t *out_w, uint32_t *out_h) {
    int fw = 0, fh = 0;
    if (w) {
        glfwGetFramebufferSize(w->glfw, &fw, &fh);
    }
    *out_w = fw > 0 ? (uint32_t)fw : 0u;
    *out_h = fh > 0 ? (uint32_t)fh : 0u;
}

void rill_window_size(const rill_window *w, uint32_t *out_w, uint32_t *out_h) {
    int ww = 0, wh = 0;
    if (w) {
        glfwGetWindowSize(w->glfw, &ww, &wh);
    }
    *out_w = ww > 0 ? (uint32_t)ww : 0u;
    *out_h = wh > 0 ? (uint32_t)wh : 0u;
}

void rill_window_set_title(rill_window *w, const char *title) {
    if (w && title) {
        glfwSetWindowTitle(w->glfw, title);
    }
}
