/* SPDX-License-Identifier: GPL-2.0-only */
/* Harness stand-in: see hantro.h. */
#ifndef KSHIM_HANTRO_HW_H_
#define KSHIM_HANTRO_HW_H_

#include "hantro.h"

/* The source format IDs of H1_REG_IN_IMG_CTRL_FMT(), as in hantro_hw.h. */
enum hantro_enc_fmt {
	ROCKCHIP_VPU_ENC_FMT_YUV420P = 0,
	ROCKCHIP_VPU_ENC_FMT_YUV420SP = 1,
	ROCKCHIP_VPU_ENC_FMT_YUYV422 = 2,
	ROCKCHIP_VPU_ENC_FMT_UYVY422 = 3,
	ROCKCHIP_VPU_ENC_FMT_RGB565 = 4,
	ROCKCHIP_VPU_ENC_FMT_RGB555 = 5,
	ROCKCHIP_VPU_ENC_FMT_RGB444 = 6,
	ROCKCHIP_VPU_ENC_FMT_RGB888 = 7,
	ROCKCHIP_VPU_ENC_FMT_RGB101010 = 8,
};

#endif /* KSHIM_HANTRO_HW_H_ */
