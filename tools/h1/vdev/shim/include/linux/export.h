/* SPDX-License-Identifier: GPL-2.0-only */
/* Harness stand-in: see kshim.h. */
#include <kshim.h>
