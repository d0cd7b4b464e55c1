/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a stateless H.264 encode client speaks, for bindgen: the series'
 * videodev2.h and v4l2-controls.h (as make headers_install leaves them),
 * hantro's vendor controls, and the media controller's requests.
 */
#include <linux/videodev2.h>
#include <linux/hantro-media.h>
#include <linux/media.h>
