/* ref.c - lab 01's CPU reference (common/spec.h): the float correlation
 * of the current content, zero outside, clamped (kit_ref_conv_part in
 * common/ref.c, which labs 01 and 02 share). Linked into local builds and the
 * grader's checker, never into a graded build. */
#include "ref.h"
#include "spec.h"

static const kit_part_ref parts[] = {{"", kit_ref_conv_part}};
const kit_lab_refs kit_lab_ref = {1, parts};
