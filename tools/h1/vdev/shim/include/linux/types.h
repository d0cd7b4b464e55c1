/* SPDX-License-Identifier: GPL-2.0-only */
/* Harness stand-in: the host's uAPI types, plus the kernel's short names. */
#ifndef KSHIM_LINUX_TYPES_H_
#define KSHIM_LINUX_TYPES_H_
#include_next <linux/types.h>
#include <stdbool.h>
#include <stdint.h>
#endif
