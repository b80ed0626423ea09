/* gi_hwrt.h: what the Hwrt GI tier's files (gi_hwrt*.c) share with the rest of the renderer. */
#ifndef RILL_RENDER_GI_HWRT_H
#define RILL_RENDER_GI_HWRT_H

#include "render_internal.h"

/* NULL when this renderer's device can run the Hwrt tier, else why not (a sentence fragment
 * that lives as long as the renderer). */
const char *rill__hwrt_unavailable(const rill_renderer *r);

#endif
