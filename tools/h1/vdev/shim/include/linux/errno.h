/* SPDX-License-Identifier: GPL-2.0-only */
/* Harness stand-in: the host header (glibc includes it too), then kshim.h. */
#include_next <linux/errno.h>
#include <kshim.h>
