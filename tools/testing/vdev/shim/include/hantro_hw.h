/* SPDX-License-Identifier: GPL-2.0-only */
/* Harness stand-in: see hantro.h. */
#include "hantro.h"
