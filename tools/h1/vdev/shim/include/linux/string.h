/* SPDX-License-Identifier: GPL-2.0-only */
/* Harness stand-in: the host header, then kshim.h. */
#include_next <linux/string.h>
#include <kshim.h>
