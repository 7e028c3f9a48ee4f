/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for <linux/types.h>, just enough for
 * include/aws_core.h (in the spirit of tools/include/linux/types.h):
 * the fixed-width kernel types, bool/true/false and size_t.
 */
#ifndef _AWS_SHIM_LINUX_TYPES_H
#define _AWS_SHIM_LINUX_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

#endif /* _AWS_SHIM_LINUX_TYPES_H */
