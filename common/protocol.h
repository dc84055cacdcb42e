/* protocol.h - the timing protocol: one run of a variant (protocol.c). */
#ifndef KIT_PROTOCOL_H
#define KIT_PROTOCOL_H

#include "ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    double kernel_ms, total_ms; /* see protocol.c for what each holds per span */
    long long l0, l1;           /* the launch window, CLOCK_MONOTONIC ns */
} kit_run_times;

/* prepare(), then the variant's span as its spec declares it. Returns the
 * glue's KIT_* code (KIT_RUNTIME_ERROR when the GPU side fails). */
int kit_run_once(kit_ctx *ctx, int v, kit_run_times *t);

#ifdef __cplusplus
}
#endif
#endif
