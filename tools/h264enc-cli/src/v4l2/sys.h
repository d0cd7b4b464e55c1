/* SPDX-License-Identifier: GPL-2.0-only */
/* The V4L2 and media-controller uAPI the CLI speaks, for bindgen. */
#include <linux/videodev2.h>
#include <linux/media.h>
