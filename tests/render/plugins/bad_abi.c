/* bad_abi.c: a plugin claiming ABI BAD_MAJOR.BAD_MINOR, which the host must refuse (major 2:
 * another major; major 1 minor 99: newer than the host). */
#include "rill/plugin.h"

static const rill_plugin_api api = {BAD_MAJOR, BAD_MINOR, sizeof(rill_plugin_api),
                                    "bad_abi", "0",       NULL};

RILL_PLUGIN_EXPORT const rill_plugin_api *rill_plugin_entry(const rill_host_api *host);

const rill_plugin_api *rill_plugin_entry(const rill_host_api *host) {
    (void)host;
    return &api;
}
