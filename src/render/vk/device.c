/* device.c: Vulkan instance, validation layers and the debug messenger, physical device choice
 * (discrete > integrated > virtual > CPU, overridable by name), logical device with the Vulkan 1.3
 * features Rill requires, samplers, the pipeline cache, and teardown. */
#include "vk_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <GLFW/glfw3.h>

#define LOGM "render"

const char *rill__vk_result_str(VkResult res) {
    switch (res) {
#define R(x)                                                                                       \
    case x:                                                                                        \
        return #x
        R(VK_SUCCESS);
        R(VK_NOT_READY);
        R(VK_TIMEOUT);
        R(VK_INCOMPLETE);
        R(VK_ERROR_OUT_OF_HOST_MEMORY);
        R(VK_ERROR_OUT_OF_DEVICE_MEMORY);
        R(VK_ERROR_INITIALIZATION_FAILED);
        R(VK_ERROR_DEVICE_LOST);
        R(VK_ERROR_MEMORY_MAP_FAILED);
        R(VK_ERROR_LAYER_NOT_PRESENT);
        R(VK_ERROR_EXTENSION_NOT_PRESENT);
        R(VK_ERROR_FEATURE_NOT_PRESENT);
        R(VK_ERROR_INCOMPATIBLE_DRIVER);
        R(VK_ERROR_TOO_MANY_OBJECTS);
        R(VK_ERROR_FORMAT_NOT_SUPPORTED);
        R(VK_ERROR_FRAGMENTED_POOL);
        R(VK_ERROR_OUT_OF_POOL_MEMORY);
        R(VK_ERROR_SURFACE_LOST_KHR);
        R(VK_ERROR_NATIVE_WINDOW_IN_USE_KHR);
        R(VK_SUBOPTIMAL_KHR);
        R(VK_ERROR_OUT_OF_DATE_KHR);
#undef R
    default:
        return "VK_ERROR_UNKNOWN";
    }
}

rill_result rill__vk_fail(rill_error *err, VkResult res, const char *what, const char *file,
                          int line) {
    const char *base = strrchr(file, '/');
    RILL_LOG_ERROR(LOGM, "%s:%d: %s failed: %s", base ? base + 1 : file, line, what,
                   rill__vk_result_str(res));
    rill_result code = res == VK_ERROR_OUT_OF_HOST_MEMORY || res == VK_ERROR_OUT_OF_DEVICE_MEMORY
                           ? RILL_ERR_OUT_OF_MEMORY
                           : RILL_ERR_VULKAN;
    return rill_error_set(err, code, "%s:%d: %s failed: %s", base ? base + 1 : file, line, what,
                          rill__vk_result_str(res));
}

void rill__vk_name(rill__gpu *gpu, VkObjectType type, uint64_t handle, const char *name) {
    if (!gpu->set_name || !name || !handle) {
        return;
    }
    VkDebugUtilsObjectNameInfoEXT info = {VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT};
    info.objectType = type;
    info.objectHandle = handle;
    info.pObjectName = name;
    gpu->set_name(gpu->dev, &info);
}

/* Every validation warning or error is logged and counted; tests fail when the count is not 0. */
static VKAPI_ATTR VkBool32 VKAPI_CALL debug_cb(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                               VkDebugUtilsMessageTypeFlagsEXT types,
                                               const VkDebugUtilsMessengerCallbackDataEXT *data,
                                               void *user) {
    rill__gpu *gpu = user;
    const char *msg = data && data->pMessage ? data->pMessage : "(no message)";
    if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
        gpu->validation_messages++;
        RILL_LOG_ERROR(LOGM, "vulkan validation: %s", msg);
    } else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
        if (types & VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT) {
            gpu->validation_messages++;
            RILL_LOG_WARN(LOGM, "vulkan validation: %s", msg);
        } else {
            /* Performance hints (unused shader outputs and the like) are advice, not errors. */
            RILL_LOG_DEBUG(LOGM, "vulkan: %s", msg);
        }
    }
    return VK_FALSE;
}

static bool env_true(const char *name) {
    const char *v = getenv(name);
    return v && v[0] && strcmp(v, "0") != 0;
}

static bool has_layer(const char *name) {
    uint32_t n = 0;
    if (vkEnumerateInstanceLayerProperties(&n, NULL) != VK_SUCCESS || n == 0) {
        return false;
    }
    VkLayerProperties *props = rill_malloc_tagged(sizeof(*props) * n, RILL_MEM_RENDER);
    bool found = false;
    if (props && vkEnumerateInstanceLayerProperties(&n, props) == VK_SUCCESS) {
        for (uint32_t i = 0; i < n && !found; i++) {
            found = strcmp(props[i].layerName, name) == 0;
        }
    }
    rill_free(props);
    return found;
}

static bool has_instance_ext(const char *name) {
    uint32_t n = 0;
    if (vkEnumerateInstanceExtensionProperties(NULL, &n, NULL) != VK_SUCCESS || n == 0) {
        return false;
    }
    VkExtensionProperties *props = rill_malloc_tagged(sizeof(*props) * n, RILL_MEM_RENDER);
    bool found = false;
    if (props && vkEnumerateInstanceExtensionProperties(NULL, &n, props) == VK_SUCCESS) {
        for (uint32_t i = 0; i < n && !found; i++) {
            found = strcmp(props[i].extensionName, name) == 0;
        }
    }
    rill_free(props);
    return found;
}

static bool icontains(const char *hay, const char *needle) {
    size_t nl = strlen(needle);
    for (const char *h = hay; *h; h++) {
        size_t i = 0;
        while (i < nl && h[i] &&
               tolower((unsigned char)h[i]) == tolower((unsigned char)needle[i])) {
            i++;
        }
        if (i == nl) {
            return true;
        }
    }
    return nl == 0;
}

static int type_score(VkPhysicalDeviceType t) {
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
        return 4;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
        return 3;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
        return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
        return 1;
    default:
        return 0;
    }
}

/* A device qualifies when it speaks Vulkan 1.3, has the three required features and a queue
 * family with graphics + compute (+ present when windowed). */
static bool device_suitable(rill__gpu *gpu, VkPhysicalDevice pd, uint32_t *out_qfam) {
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(pd, &props);
    if (props.apiVersion < VK_API_VERSION_1_3) {
        return false;
    }
    VkPhysicalDeviceVulkan13Features f13 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    VkPhysicalDeviceVulkan12Features f12 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    f12.pNext = &f13;
    VkPhysicalDeviceFeatures2 f2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    f2.pNext = &f12;
    vkGetPhysicalDeviceFeatures2(pd, &f2);
    if (!f13.dynamicRendering || !f13.synchronization2 || !f12.timelineSemaphore) {
        return false;
    }
    uint32_t nq = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, NULL);
    VkQueueFamilyProperties qp[16];
    if (nq > 16) {
        nq = 16;
    }
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, qp);
    for (uint32_t i = 0; i < nq; i++) {
        VkQueueFlags need = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
        if ((qp[i].queueFlags & need) != need) {
            continue;
        }
        if (gpu->surface) {
            VkBool32 present = VK_FALSE;
            if (vkGetPhysicalDeviceSurfaceSupportKHR(pd, i, gpu->surface, &present) != VK_SUCCESS ||
                !present) {
                continue;
            }
        }
        *out_qfam = i;
        return true;
    }
    return false;
}

static rill_result pick_device(rill__gpu *gpu, rill_error *err) {
    uint32_t n = 0;
    RILL__VK_TRY(err, vkEnumeratePhysicalDevices(gpu->inst, &n, NULL));
    if (n == 0) {
        return rill_error_set(err, RILL_ERR_NO_DEVICE,
                              "vulkan: no physical device (is a driver "
                              "such as mesa-vulkan-drivers installed?)");
    }
    VkPhysicalDevice pds[16];
    if (n > 16) {
        n = 16;
    }
    RILL__VK_TRY(err, vkEnumeratePhysicalDevices(gpu->inst, &n, pds));
    const char *want = gpu->desc.device_name;
    if (!want || !want[0]) {
        want = getenv("RILL_DEVICE");
    }
    int best = -1, best_score = -1;
    uint32_t best_q = 0;
    for (uint32_t i = 0; i < n; i++) {
        VkPhysicalDeviceProperties props;
        vkGetPhysicalDeviceProperties(pds[i], &props);
        uint32_t q = 0;
        bool ok = device_suitable(gpu, pds[i], &q);
        RILL_LOG_INFO(LOGM, "vulkan device %u: %s (type %d, api %u.%u)%s", i, props.deviceName,
                      (int)props.deviceType, VK_API_VERSION_MAJOR(props.apiVersion),
                      VK_API_VERSION_MINOR(props.apiVersion), ok ? "" : " - not suitable");
        if (!ok) {
            continue;
        }
        int score = type_score(props.deviceType);
        if (want && want[0] && icontains(props.deviceName, want)) {
            score += 100;
        }
        if (score > best_score) {
            best = (int)i;
            best_score = score;
            best_q = q;
        }
    }
    if (best < 0) {
        return rill_error_set(err, RILL_ERR_NO_DEVICE,
                              "vulkan: no device supports Vulkan 1.3 with dynamicRendering, "
                              "synchronization2 and timelineSemaphore");
    }
    if (want && want[0] && best_score < 100) {
        RILL_LOG_WARN(LOGM, "no device matches '%s'; using the automatic choice", want);
    }
    gpu->pd = pds[best];
    gpu->qfam = best_q;
    vkGetPhysicalDeviceProperties(gpu->pd, &gpu->props);
    vkGetPhysicalDeviceMemoryProperties(gpu->pd, &gpu->memprops);
    /* RILL_MAX_STAGE_SAMPLERS lowers the device's per-stage sampler limit, to see on any machine
     * what a device at Vulkan's minimum (16) does with Rill's pipelines (pipeline.c refuses them
     * by name). It can only lower the limit. */
    const char *cap = getenv("RILL_MAX_STAGE_SAMPLERS");
    if (cap && cap[0]) {
        unsigned long v = strtoul(cap, NULL, 10);
        VkPhysicalDeviceLimits *l = &gpu->props.limits;
        if (v < l->maxPerStageDescriptorSamplers) {
            l->maxPerStageDescriptorSamplers = (uint32_t)v;
        }
    }
    return RILL_OK;
}

static rill_result create_instance(rill__gpu *gpu, rill_error *err) {
    const char *exts[16];
    uint32_t next = 0;
    if (gpu->desc.glfw_window) {
        uint32_t n = 0;
        const char **req = glfwGetRequiredInstanceExtensions(&n);
        if (!req) {
            return rill_error_set(err, RILL_ERR_UNSUPPORTED,
                                  "vulkan: GLFW reports no Vulkan support");
        }
        for (uint32_t i = 0; i < n && next < 12; i++) {
            exts[next++] = req[i];
        }
    }
    bool want_validation = gpu->desc.validation > 0;
    if (gpu->desc.validation < 0) {
#ifndef NDEBUG
        want_validation = true;
#endif
        if (env_true("RILL_VALIDATION")) {
            want_validation = true;
        }
    }
    const char *layers[1];
    uint32_t nlayers = 0;
    if (want_validation) {
        if (has_layer("VK_LAYER_KHRONOS_validation")) {
            layers[nlayers++] = "VK_LAYER_KHRONOS_validation";
            gpu->caps.validation = true;
        } else {
            RILL_LOG_WARN(LOGM, "validation requested but VK_LAYER_KHRONOS_validation is missing");
        }
    }
    gpu->debug_utils = has_instance_ext(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    if (gpu->debug_utils) {
        exts[next++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    }

    VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = gpu->desc.app_name ? gpu->desc.app_name : "rill";
    app.pEngineName = "rill";
    app.apiVersion = VK_API_VERSION_1_3;
    VkInstanceCreateInfo ci = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ci.pApplicationInfo = &app;
    ci.enabledLayerCount = nlayers;
    ci.ppEnabledLayerNames = layers;
    ci.enabledExtensionCount = next;
    ci.ppEnabledExtensionNames = exts;

    VkDebugUtilsMessengerCreateInfoEXT mci = {
        VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    mci.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                          VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    mci.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                      VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                      VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    mci.pfnUserCallback = debug_cb;
    mci.pUserData = gpu;
    VkValidationFeatureEnableEXT sync_feature =
        VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
    VkValidationFeaturesEXT vf = {VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
    vf.enabledValidationFeatureCount = 1;
    vf.pEnabledValidationFeatures = &sync_feature;
    if (gpu->caps.validation && gpu->debug_utils) {
        ci.pNext = &mci; /* also catches messages from vkCreateInstance itself */
        if (gpu->desc.sync_validation || env_true("RILL_SYNC_VALIDATION")) {
            mci.pNext = &vf;
        }
    }
    VkResult res = vkCreateInstance(&ci, NULL, &gpu->inst);
    if (res == VK_ERROR_INCOMPATIBLE_DRIVER) {
        return rill_error_set(err, RILL_ERR_NO_DEVICE,
                              "vulkan: no Vulkan 1.3 driver found (install mesa-vulkan-drivers for "
                              "lavapipe, or a GPU driver)");
    }
    RILL__VK_TRY(err, res);
    if (gpu->debug_utils) {
        gpu->set_name = (PFN_vkSetDebugUtilsObjectNameEXT)vkGetInstanceProcAddr(
            gpu->inst, "vkSetDebugUtilsObjectNameEXT");
        gpu->label_begin = (PFN_vkCmdBeginDebugUtilsLabelEXT)vkGetInstanceProcAddr(
            gpu->inst, "vkCmdBeginDebugUtilsLabelEXT");
        gpu->label_end = (PFN_vkCmdEndDebugUtilsLabelEXT)vkGetInstanceProcAddr(
            gpu->inst, "vkCmdEndDebugUtilsLabelEXT");
        if (gpu->caps.validation) {
            PFN_vkCreateDebugUtilsMessengerEXT create =
                (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
                    gpu->inst, "vkCreateDebugUtilsMessengerEXT");
            mci.pNext = NULL;
            if (create) {
                RILL__VK_TRY(err, create(gpu->inst, &mci, NULL, &gpu->messenger));
            }
        }
    }
    return RILL_OK;
}

static bool has_device_ext(VkPhysicalDevice pd, const char *name) {
    uint32_t n = 0;
    if (vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL) != VK_SUCCESS || n == 0) {
        return false;
    }
    VkExtensionProperties *props = rill_malloc_tagged(sizeof(*props) * n, RILL_MEM_RENDER);
    bool found = false;
    if (props && vkEnumerateDeviceExtensionProperties(pd, NULL, &n, props) == VK_SUCCESS) {
        for (uint32_t i = 0; i < n && !found; i++) {
            found = strcmp(props[i].extensionName, name) == 0;
        }
    }
    rill_free(props);
    return found;
}

/* The optional ray-query chain (the Hwrt GI tier): its extensions and features, chained onto the
 * device's feature structs when the device offers all of them. */
typedef struct vk_ray_query_chain {
    VkPhysicalDeviceAccelerationStructureFeaturesKHR accel;
    VkPhysicalDeviceRayQueryFeaturesKHR rq;
} vk_ray_query_chain;

/* Whether the device offers everything ray queries need; says what is missing in the caps' note
 * otherwise. RILL_NO_RAY_QUERY=1 turns it off (to compare the fallback on the same device). */
static bool ray_query_offered(rill__gpu *gpu, const VkPhysicalDeviceVulkan12Features *avail12) {
    char *note = gpu->caps.ray_query_note;
    size_t cap = sizeof(gpu->caps.ray_query_note);
    if (env_true("RILL_NO_RAY_QUERY")) {
        snprintf(note, cap, "turned off by RILL_NO_RAY_QUERY");
        return false;
    }
    const char *exts[3] = {VK_KHR_ACCELERATION_STRUCTURE_EXTENSION_NAME,
                           VK_KHR_RAY_QUERY_EXTENSION_NAME,
                           VK_KHR_DEFERRED_HOST_OPERATIONS_EXTENSION_NAME};
    for (int i = 0; i < 3; i++) {
        if (!has_device_ext(gpu->pd, exts[i])) {
            snprintf(note, cap, "the device offers no %s", exts[i]);
            return false;
        }
    }
    vk_ray_query_chain c = {{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_FEATURES_KHR},
                            {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_QUERY_FEATURES_KHR}};
    c.accel.pNext = &c.rq;
    VkPhysicalDeviceFeatures2 f2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    f2.pNext = &c.accel;
    vkGetPhysicalDeviceFeatures2(gpu->pd, &f2);
    const char *missing = !c.accel.accelerationStructure  ? "accelerationStructure"
                          : !c.rq.rayQuery                ? "rayQuery"
                          : !avail12->bufferDeviceAddress ? "bufferDeviceAddress"
                                                          : NULL;
    if (missing) {
        snprintf(note, cap, "the device lacks the %s feature", missing);
        return false;
    }
    note[0] = '\0';
    return true;
}

/* Subgroup ballot and arithmetic operations in compute shaders (core since Vulkan 1.1; every
 * desktop driver has them, but they are properties, not guarantees). */
static bool subgroup_ballot_arith(VkPhysicalDevice pd) {
    VkPhysicalDeviceSubgroupProperties sg = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceProperties2 p2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &sg};
    vkGetPhysicalDeviceProperties2(pd, &p2);
    const VkSubgroupFeatureFlags need =
        VK_SUBGROUP_FEATURE_BALLOT_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT |
        VK_SUBGROUP_FEATURE_VOTE_BIT | VK_SUBGROUP_FEATURE_BASIC_BIT;
    return (sg.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0 &&
           (sg.supportedOperations & need) == need;
}

static rill_result create_device(rill__gpu *gpu, rill_error *err) {
    VkPhysicalDeviceFeatures avail;
    vkGetPhysicalDeviceFeatures(gpu->pd, &avail);
    VkPhysicalDeviceVulkan12Features avail12 = {
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 avail2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    avail2.pNext = &avail12;
    vkGetPhysicalDeviceFeatures2(gpu->pd, &avail2);
    VkPhysicalDeviceVulkan13Features f13 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    f13.dynamicRendering = VK_TRUE;
    f13.synchronization2 = VK_TRUE;
    /* Core in 1.3 and always present: glslc's vulkan1.3 target relies on it (LocalSizeId). */
    f13.maintenance4 = VK_TRUE;
    /* Core in 1.3 and always present: the LOD crossfade's dither demotes pixels to helpers so the
     * quad's texture derivatives stay defined (shaders/common.glsl lod_dither_discard). */
    f13.shaderDemoteToHelperInvocation = VK_TRUE;
    VkPhysicalDeviceVulkan12Features f12 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    f12.timelineSemaphore = VK_TRUE;
    /* GPU culling draws its compacted commands with a count it wrote (gpu_cull.c). */
    f12.drawIndirectCount = avail12.drawIndirectCount;
    f12.pNext = &f13;
    VkPhysicalDeviceFeatures2 f2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    f2.pNext = &f12;
    /* Wireframe views need polygon mode line; ask for it when present and say so in caps. */
    f2.features.fillModeNonSolid = avail.fillModeNonSolid;
    f2.features.samplerAnisotropy = avail.samplerAnisotropy;
    f2.features.depthClamp = avail.depthClamp;
    f2.features.fragmentStoresAndAtomics = avail.fragmentStoresAndAtomics; /* OIT layers */
    f2.features.textureCompressionBC = avail.textureCompressionBC;
    /* Static batches of one material draw as one indirect call (frame_passes.c draw_list). */
    f2.features.multiDrawIndirect = avail.multiDrawIndirect;
    f2.features.drawIndirectFirstInstance = avail.drawIndirectFirstInstance;
    gpu->caps.multi_draw_indirect =
        avail.multiDrawIndirect == VK_TRUE && avail.drawIndirectFirstInstance == VK_TRUE;
    gpu->caps.draw_indirect_count =
        gpu->caps.multi_draw_indirect && avail12.drawIndirectCount == VK_TRUE;
    gpu->caps.fill_mode_non_solid = avail.fillModeNonSolid == VK_TRUE;
    gpu->caps.fragment_stores = avail.fragmentStoresAndAtomics == VK_TRUE;
    gpu->caps.texture_bc = avail.textureCompressionBC == VK_TRUE;
    gpu->caps.anisotropy = avail.samplerAnisotropy == VK_TRUE;
    gpu->caps.subgroup_ballot_arith = subgroup_ballot_arith(gpu->pd);

    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qci.queueFamilyIndex = gpu->qfam;
    qci.queueCount = 1;
    qci.pQueuePriorities = &prio;
    const char *exts[4];
    uint32_t next = 0;
    if (gpu->surface) {
        exts[next++] = VK_KHR_SWAPCHAIN_EXTENSION_NAME;
    }
    /* Ray queries when offered (optional): acceleration structures read their inputs and are
     * found through buffer device addresses. */
    vk_ray_query_chain rqc = {
        {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_FEATURES_KHR},
        {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_QUERY_FEATURES_KHR}};
    gpu->caps.ray_query = ray_query_offered(gpu, &avail12);
    if (gpu->caps.ray_query) {
        exts[next++] = VK_KHR_ACCELERATION_STRUCTURE_EXTENSION_NAME;
        exts[next++] = VK_KHR_RAY_QUERY_EXTENSION_NAME;
        exts[next++] = VK_KHR_DEFERRED_HOST_OPERATIONS_EXTENSION_NAME;
        rqc.accel.accelerationStructure = VK_TRUE;
        rqc.rq.rayQuery = VK_TRUE;
        rqc.accel.pNext = &rqc.rq;
        f13.pNext = &rqc.accel;
        f12.bufferDeviceAddress = VK_TRUE;
    }
    VkDeviceCreateInfo ci = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    ci.pNext = &f2;
    ci.queueCreateInfoCount = 1;
    ci.pQueueCreateInfos = &qci;
    ci.enabledExtensionCount = next;
    ci.ppEnabledExtensionNames = exts;
    RILL__VK_TRY(err, vkCreateDevice(gpu->pd, &ci, NULL, &gpu->dev));
    vkGetDeviceQueue(gpu->dev, gpu->qfam, 0, &gpu->queue);
    if (gpu->caps.ray_query) {
        RILL_TRY(rill__vk_accel_load(gpu, err));
    }
    RILL_LOG_INFO(LOGM, "vulkan: ray queries %s%s%s", gpu->caps.ray_query ? "on" : "off",
                  gpu->caps.ray_query ? "" : ": ", gpu->caps.ray_query_note);

    uint32_t nq = 0;
    VkQueueFamilyProperties qp[16];
    vkGetPhysicalDeviceQueueFamilyProperties(gpu->pd, &nq, NULL);
    if (nq > 16) {
        nq = 16;
    }
    vkGetPhysicalDeviceQueueFamilyProperties(gpu->pd, &nq, qp);
    gpu->caps.timestamps =
        gpu->props.limits.timestampComputeAndGraphics && qp[gpu->qfam].timestampValidBits > 0;
    gpu->caps.timestamp_period_ns = gpu->props.limits.timestampPeriod;
    gpu->caps.max_storage_range = gpu->props.limits.maxStorageBufferRange;
    gpu->caps.msaa_counts =
        (gpu->props.limits.framebufferColorSampleCounts &
         gpu->props.limits.framebufferDepthSampleCounts &
         (VK_SAMPLE_COUNT_2_BIT | VK_SAMPLE_COUNT_4_BIT | VK_SAMPLE_COUNT_8_BIT)) |
        VK_SAMPLE_COUNT_1_BIT;
    snprintf(gpu->caps.device_name, sizeof(gpu->caps.device_name), "%s", gpu->props.deviceName);
    switch (gpu->props.deviceType) {
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
        gpu->caps.device_type = 1;
        break;
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
        gpu->caps.device_type = 2;
        break;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
        gpu->caps.device_type = 3;
        break;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
        gpu->caps.device_type = 4;
        break;
    default:
        gpu->caps.device_type = 0;
        break;
    }
    return RILL_OK;
}

static rill_result create_samplers(rill__gpu *gpu, rill_error *err) {
    static const char *const names[RILL__SAMPLER_NUM] = {
        "sampler.linear_repeat", "sampler.linear_clamp",  "sampler.nearest_clamp",
        "sampler.shadow",        "sampler.linear_mirror", "sampler.nearest_repeat",
        "sampler.nearest_mirror"};
    for (int i = 0; i < RILL__SAMPLER_NUM; i++) {
        bool nearest = i == RILL__SAMPLER_NEAREST_CLAMP || i == RILL__SAMPLER_NEAREST_REPEAT ||
                       i == RILL__SAMPLER_NEAREST_MIRROR;
        VkSamplerCreateInfo ci = {VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
        /* Nearest applies to magnification only: minified texels still filter through mips. */
        ci.magFilter = nearest ? VK_FILTER_NEAREST : VK_FILTER_LINEAR;
        ci.minFilter = i == RILL__SAMPLER_NEAREST_CLAMP ? VK_FILTER_NEAREST : VK_FILTER_LINEAR;
        /* Point sampling of single-level images (depth included, which has no linear filter). */
        ci.mipmapMode = i == RILL__SAMPLER_NEAREST_CLAMP ? VK_SAMPLER_MIPMAP_MODE_NEAREST
                                                         : VK_SAMPLER_MIPMAP_MODE_LINEAR;
        VkSamplerAddressMode mode = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
        if (i == RILL__SAMPLER_LINEAR_REPEAT || i == RILL__SAMPLER_NEAREST_REPEAT) {
            mode = VK_SAMPLER_ADDRESS_MODE_REPEAT;
        } else if (i == RILL__SAMPLER_LINEAR_MIRROR || i == RILL__SAMPLER_NEAREST_MIRROR) {
            mode = VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT;
        } else if (i == RILL__SAMPLER_SHADOW) {
            mode = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER;
        }
        ci.addressModeU = ci.addressModeV = ci.addressModeW = mode;
        ci.maxLod = VK_LOD_CLAMP_NONE;
        /* Material samplers filter anisotropically (up to 16x): without it a surface seen at an
         * angle takes its mip level from the longer axis of its footprint and looks up to a level
         * blurrier than in viewers that use it (docs/renderer.md, Textures). Not on CPU devices:
         * llvmpipe's anisotropic path blurs even texel-exact 1:1 sampling (test_texture_gpu). */
        if (gpu->caps.anisotropy && gpu->caps.device_type != 4 && i != RILL__SAMPLER_SHADOW &&
            i != RILL__SAMPLER_NEAREST_CLAMP) {
            ci.anisotropyEnable = VK_TRUE;
            ci.maxAnisotropy = RILL_MIN(16.0f, gpu->props.limits.maxSamplerAnisotropy);
        }
        ci.borderColor = VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE;
        if (i == RILL__SAMPLER_SHADOW) {
            ci.compareEnable = VK_TRUE;
            ci.compareOp = VK_COMPARE_OP_LESS_OR_EQUAL;
            ci.maxLod = 0.0f;
        }
        RILL__VK_TRY(err, vkCreateSampler(gpu->dev, &ci, NULL, &gpu->samplers[i]));
        rill__vk_name(gpu, VK_OBJECT_TYPE_SAMPLER, (uint64_t)gpu->samplers[i], names[i]);
    }
    return RILL_OK;
}

VkSampler rill__vk_sampler(const rill__gpu *gpu, rill__sampler_kind kind) {
    if ((uint32_t)kind < RILL__SAMPLER_NUM) {
        return gpu->samplers[kind];
    }
    uint32_t i = (uint32_t)kind - RILL__SAMPLER_NUM;
    return i < gpu->material_samplers.len ? gpu->material_samplers.data[i]
                                          : gpu->samplers[RILL__SAMPLER_LINEAR_REPEAT];
}

static VkSamplerAddressMode address_mode(uint8_t wrap) {
    return wrap == 1   ? VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE
           : wrap == 2 ? VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT
                       : VK_SAMPLER_ADDRESS_MODE_REPEAT;
}

bool rill__sampler_desc_of(const rill__gpu *gpu, rill__sampler_kind kind, rill__sampler_desc *out) {
    uint32_t i = (uint32_t)kind - RILL__SAMPLER_NUM;
    if ((uint32_t)kind < RILL__SAMPLER_NUM || i >= gpu->material_sampler_descs.len) {
        return false;
    }
    *out = gpu->material_sampler_descs.data[i];
    return true;
}

rill__sampler_kind rill__sampler_material(rill__gpu *gpu, const rill__sampler_desc *d,
                                          rill_error *err) {
    RILL__GPU_GUARD(gpu);
    for (uint32_t i = 0; i < gpu->material_sampler_descs.len; i++) {
        const rill__sampler_desc *o = &gpu->material_sampler_descs.data[i];
        if (o->wrap_u == d->wrap_u && o->wrap_v == d->wrap_v && o->mag_nearest == d->mag_nearest &&
            o->min_nearest == d->min_nearest && o->mip == d->mip) {
            return (rill__sampler_kind)(RILL__SAMPLER_NUM + i);
        }
    }
    VkSamplerCreateInfo ci = {VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
    ci.magFilter = d->mag_nearest ? VK_FILTER_NEAREST : VK_FILTER_LINEAR;
    ci.minFilter = d->min_nearest ? VK_FILTER_NEAREST : VK_FILTER_LINEAR;
    ci.mipmapMode = d->mip == 1 ? VK_SAMPLER_MIPMAP_MODE_NEAREST : VK_SAMPLER_MIPMAP_MODE_LINEAR;
    ci.addressModeU = address_mode(d->wrap_u);
    ci.addressModeV = address_mode(d->wrap_v);
    ci.addressModeW = VK_SAMPLER_ADDRESS_MODE_REPEAT;
    ci.maxLod = d->mip == 2 ? 0.0f : VK_LOD_CLAMP_NONE; /* no mip filter: the base level only */
    /* As the built-in material samplers: anisotropic for linear, mipmapped filtering on GPUs. */
    if (gpu->caps.anisotropy && gpu->caps.device_type != 4 && d->mip == 0 && !d->min_nearest) {
        ci.anisotropyEnable = VK_TRUE;
        ci.maxAnisotropy = RILL_MIN(16.0f, gpu->props.limits.maxSamplerAnisotropy);
    }
    VkSampler s = VK_NULL_HANDLE;
    VkResult res = vkCreateSampler(gpu->dev, &ci, NULL, &s);
    if (res != VK_SUCCESS) {
        rill__vk_fail(err, res, "vkCreateSampler", __FILE__, __LINE__);
        return RILL__SAMPLER_LINEAR_REPEAT;
    }
    if (!rill_array_push(&gpu->material_samplers, s)) {
        vkDestroySampler(gpu->dev, s, NULL);
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory for a sampler");
        return RILL__SAMPLER_LINEAR_REPEAT;
    }
    if (!rill_array_push(&gpu->material_sampler_descs, *d)) {
        gpu->material_samplers.len--;
        vkDestroySampler(gpu->dev, s, NULL);
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory for a sampler");
        return RILL__SAMPLER_LINEAR_REPEAT;
    }
    return (rill__sampler_kind)(RILL__SAMPLER_NUM + gpu->material_samplers.len - 1);
}

static rill_result create_pipeline_cache(rill__gpu *gpu, rill_error *err) {
    uint8_t *data = NULL;
    size_t size = 0;
    if (gpu->desc.pipeline_cache_path && rill_file_exists(gpu->desc.pipeline_cache_path)) {
        if (rill_file_read_all(gpu->desc.pipeline_cache_path, &data, &size, NULL) != RILL_OK) {
            data = NULL;
            size = 0;
        }
    }
    VkPipelineCacheCreateInfo ci = {VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
    /* The driver validates the header (vendor, device, UUID) and ignores a foreign cache, but a
     * short file would be rejected outright, so only pass data that holds a full header. */
    if (data && size >= 32) {
        ci.initialDataSize = size;
        ci.pInitialData = data;
    }
    VkResult res = vkCreatePipelineCache(gpu->dev, &ci, NULL, &gpu->pcache);
    if (res != VK_SUCCESS && ci.pInitialData) {
        ci.initialDataSize = 0;
        ci.pInitialData = NULL;
        res = vkCreatePipelineCache(gpu->dev, &ci, NULL, &gpu->pcache);
    }
    rill_free(data);
    RILL__VK_TRY(err, res);
    return RILL_OK;
}

static void save_pipeline_cache(rill__gpu *gpu) {
    if (!gpu->pcache || !gpu->desc.pipeline_cache_path) {
        return;
    }
    size_t size = 0;
    if (vkGetPipelineCacheData(gpu->dev, gpu->pcache, &size, NULL) != VK_SUCCESS || size == 0) {
        return;
    }
    void *data = rill_malloc_tagged(size, RILL_MEM_RENDER);
    if (data && vkGetPipelineCacheData(gpu->dev, gpu->pcache, &size, data) == VK_SUCCESS) {
        rill_error e = {0};
        if (rill_file_write_all(gpu->desc.pipeline_cache_path, data, size, &e) != RILL_OK) {
            RILL_LOG_WARN(LOGM, "pipeline cache not saved: %s", e.msg);
        }
    }
    rill_free(data);
}

static rill_result create_frames(rill__gpu *gpu, rill_error *err) {
    VkSemaphoreTypeCreateInfo tci = {VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    tci.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    tci.initialValue = 0;
    VkSemaphoreCreateInfo sci = {VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    sci.pNext = &tci;
    RILL__VK_TRY(err, vkCreateSemaphore(gpu->dev, &sci, NULL, &gpu->timeline));
    rill__vk_name(gpu, VK_OBJECT_TYPE_SEMAPHORE, (uint64_t)gpu->timeline, "frame timeline");
    for (uint32_t i = 0; i < gpu->desc.frames_in_flight; i++) {
        vk_frame *f = &gpu->frames[i];
        VkCommandPoolCreateInfo pci = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        pci.queueFamilyIndex = gpu->qfam;
        pci.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
        RILL__VK_TRY(err, vkCreateCommandPool(gpu->dev, &pci, NULL, &f->pool));
        VkCommandBufferAllocateInfo ai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        ai.commandPool = f->pool;
        ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        ai.commandBufferCount = 1;
        RILL__VK_TRY(err, vkAllocateCommandBuffers(gpu->dev, &ai, &f->cb));
        if (gpu->caps.timestamps) {
            VkQueryPoolCreateInfo qci = {VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
            qci.queryType = VK_QUERY_TYPE_TIMESTAMP;
            qci.queryCount = RILL__VK_MAX_QUERIES;
            RILL__VK_TRY(err, vkCreateQueryPool(gpu->dev, &qci, NULL, &f->queries));
        }
        char label[64];
        snprintf(label, sizeof(label), "frame %u staging", i);
        f->staging = rill__buf_create(gpu, gpu->desc.upload_budget_bytes, RILL__BUF_TRANSFER_SRC,
                                      true, label, err);
        if (!f->staging) {
            return err ? err->code : RILL_ERR_VULKAN;
        }
        snprintf(label, sizeof(label), "frame %u scratch", i);
        f->scratch = rill__buf_create(gpu, RILL__SCRATCH_FIRST_BYTES,
                                      RILL__BUF_STORAGE | RILL__BUF_UNIFORM | RILL__BUF_INDIRECT,
                                      true, label, err);
        if (!f->scratch) {
            return err ? err->code : RILL_ERR_VULKAN;
        }
        if (gpu->surface) {
            VkSemaphoreCreateInfo bci = {VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
            RILL__VK_TRY(err, vkCreateSemaphore(gpu->dev, &bci, NULL, &f->acquire));
        }
    }
    return RILL_OK;
}

static void desc_defaults(rill__gpu_desc *d) {
    if (d->frames_in_flight == 0) {
        d->frames_in_flight = 2;
    }
    if (d->frames_in_flight > RILL__VK_MAX_FRAMES) {
        d->frames_in_flight = RILL__VK_MAX_FRAMES;
    }
    if (d->upload_budget_bytes == 0) {
        d->upload_budget_bytes = 32u << 20;
    }
    if (d->block_size_bytes == 0) {
        d->block_size_bytes = 64u << 20;
    }
}

rill_result rill__gpu_create(const rill__gpu_desc *desc, rill__gpu **out, rill_error *err) {
    *out = NULL;
    rill__gpu *gpu = rill_calloc_tagged(1, sizeof(*gpu), RILL_MEM_RENDER);
    if (!gpu) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
    }
    if (desc) {
        gpu->desc = *desc;
    }
    desc_defaults(&gpu->desc);
    rill_result r = create_instance(gpu, err);
    if (r == RILL_OK && gpu->desc.glfw_window) {
        VkResult vr = glfwCreateWindowSurface(gpu->inst, (GLFWwindow *)gpu->desc.glfw_window, NULL,
                                              &gpu->surface);
        if (vr != VK_SUCCESS) {
            r = rill__vk_fail(err, vr, "glfwCreateWindowSurface", __FILE__, __LINE__);
        }
    }
    if (r == RILL_OK) {
        r = pick_device(gpu, err);
    }
    if (r == RILL_OK) {
        r = create_device(gpu, err);
    }
    if (r == RILL_OK) {
        r = create_samplers(gpu, err);
    }
    if (r == RILL_OK) {
        r = create_pipeline_cache(gpu, err);
    }
    if (r == RILL_OK) {
        r = create_frames(gpu, err);
    }
    if (r == RILL_OK && gpu->surface) {
        r = rill__vk_swapchain_create(gpu, err);
    }
    if (r != RILL_OK) {
        rill__gpu_destroy(gpu);
        return r;
    }
    RILL_LOG_INFO(LOGM,
                  "vulkan: using %s (validation %s, wireframe %s, timestamps %s, subgroup ops %s)",
                  gpu->caps.device_name, gpu->caps.validation ? "on" : "off",
                  gpu->caps.fill_mode_non_solid ? "yes" : "no", gpu->caps.timestamps ? "yes" : "no",
                  gpu->caps.subgroup_ballot_arith ? "yes" : "no");
    *out = gpu;
    return RILL_OK;
}

void rill__gpu_destroy(rill__gpu *gpu) {
    if (!gpu) {
        return;
    }
    if (gpu->dev) {
        vkDeviceWaitIdle(gpu->dev);
        for (uint32_t i = 0; i < gpu->uploads.len; i++) {
            rill__vk_upload_free(&gpu->uploads.data[i]);
        }
        rill_array_free(&gpu->uploads);
        for (uint32_t i = 0; i < gpu->desc.frames_in_flight; i++) {
            vk_frame *f = &gpu->frames[i];
            rill__buf_destroy(gpu, f->staging);
            rill__buf_destroy(gpu, f->scratch);
        }
        for (uint32_t i = 0; i < gpu->dels.len; i++) {
            rill__vk_destroy_now(gpu, &gpu->dels.data[i]);
        }
        rill_array_free(&gpu->dels);
        rill__vk_swapchain_destroy(gpu);
        for (uint32_t i = 0; i < gpu->desc.frames_in_flight; i++) {
            vk_frame *f = &gpu->frames[i];
            for (uint32_t p = 0; p < f->dpools.len; p++) {
                vkDestroyDescriptorPool(gpu->dev, f->dpools.data[p], NULL);
            }
            rill_array_free(&f->dpools);
            if (f->queries) {
                vkDestroyQueryPool(gpu->dev, f->queries, NULL);
            }
            if (f->pool) {
                vkDestroyCommandPool(gpu->dev, f->pool, NULL);
            }
            if (f->acquire) {
                vkDestroySemaphore(gpu->dev, f->acquire, NULL);
            }
        }
        for (uint32_t p = 0; p < gpu->persistent_pools.len; p++) {
            vkDestroyDescriptorPool(gpu->dev, gpu->persistent_pools.data[p], NULL);
        }
        rill_array_free(&gpu->persistent_pools);
        if (gpu->timeline) {
            vkDestroySemaphore(gpu->dev, gpu->timeline, NULL);
        }
        for (int i = 0; i < RILL__SAMPLER_NUM; i++) {
            if (gpu->samplers[i]) {
                vkDestroySampler(gpu->dev, gpu->samplers[i], NULL);
            }
        }
        for (uint32_t i = 0; i < gpu->material_samplers.len; i++) {
            vkDestroySampler(gpu->dev, gpu->material_samplers.data[i], NULL);
        }
        rill_array_free(&gpu->material_samplers);
        rill_array_free(&gpu->material_sampler_descs);
        save_pipeline_cache(gpu);
        if (gpu->pcache) {
            vkDestroyPipelineCache(gpu->dev, gpu->pcache, NULL);
        }
        rill__vk_mem_shutdown(gpu);
        vkDestroyDevice(gpu->dev, NULL);
    }
    if (gpu->surface) {
        vkDestroySurfaceKHR(gpu->inst, gpu->surface, NULL);
    }
    if (gpu->messenger) {
        PFN_vkDestroyDebugUtilsMessengerEXT destroy =
            (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
                gpu->inst, "vkDestroyDebugUtilsMessengerEXT");
        if (destroy) {
            destroy(gpu->inst, gpu->messenger, NULL);
        }
    }
    if (gpu->inst) {
        vkDestroyInstance(gpu->inst, NULL);
    }
    rill_free(gpu);
}

const rill__gpu_caps *rill__gpu_get_caps(const rill__gpu *gpu) {
    return &gpu->caps;
}

uint32_t rill__gpu_validation_messages(const rill__gpu *gpu) {
    return gpu->validation_messages;
}

rill_result rill__gpu_wait_idle(rill__gpu *gpu, rill_error *err) {
    RILL__GPU_GUARD(gpu);
    RILL__VK_TRY(err, vkDeviceWaitIdle(gpu->dev));
    return RILL_OK;
}
