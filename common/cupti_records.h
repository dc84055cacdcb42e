/* cupti_records.h - the CUPTI activity record types of the toolkit in use.
 *
 * CUPTI hands out records of the newest layout its version knows, and each
 * toolkit names that layout differently: CUDA 13 has CUpti_ActivityKernel10
 * and CUpti_ActivityMemcpy6; CUDA 12.8 and 12.9 have Kernel9 and Memcpy6;
 * CUDA 12.0 to 12.6 have Kernel9 and Memcpy5. The fields the kit reads
 * (start, end, streamId, name, shared memory; bytes, copyKind, srcKind,
 * dstKind; memory kind, operation, address, bytes, timestamp) are in all of them. Include
 * after <cupti.h>. */
#ifndef KIT_CUPTI_RECORDS_H
#define KIT_CUPTI_RECORDS_H

#if CUPTI_API_VERSION >= 130000 /* CUDA 13: the version is xxyyzz */
typedef CUpti_ActivityKernel10 kit_cupti_kernel;
#else
typedef CUpti_ActivityKernel9 kit_cupti_kernel;
#endif

/* memory taken and given back: Memory4 only appends a field to Memory3 */
#if CUPTI_API_VERSION >= 130000
typedef CUpti_ActivityMemory4 kit_cupti_memory;
#else
typedef CUpti_ActivityMemory3 kit_cupti_memory;
#endif

#if CUPTI_API_VERSION >= 26 /* 26: CUDA 12.8 */
typedef CUpti_ActivityMemcpy6 kit_cupti_memcpy;
#else
typedef CUpti_ActivityMemcpy5 kit_cupti_memcpy;
#endif

#endif
