// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel below the driver: the stand-ins of the kernel APIs the real
 * hantro H1 H.264 backend and control validation call (log, DMA memory,
 * register access, the control lookups). Register writes and DMA memory go
 * to the host, where the software H1 plays the hardware. Nothing here calls
 * the driver: the harness above it (harness.c) does.
 */
#include <stdarg.h>
#include "hantro.h"
#include "vdev.h"

void kshim_log(struct device *dev, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	vdev_host_log(dev->host, msg);
}

void *dma_alloc_coherent(struct device *dev, size_t size, dma_addr_t *dma, gfp_t gfp)
{
	(void)gfp;
	return vdev_host_dma_alloc(dev->host, size, dma);
}

void dma_free_coherent(struct device *dev, size_t size, void *cpu, dma_addr_t dma)
{
	(void)size;
	(void)dma;
	vdev_host_dma_free(dev->host, cpu);
}

void vepu_write_relaxed(struct hantro_dev *vpu, u32 val, u32 reg)
{
	vdev_host_reg_write(vpu->host, reg, val);
}

void vepu_write(struct hantro_dev *vpu, u32 val, u32 reg)
{
	vdev_host_reg_write(vpu->host, reg, val);
}

u32 vepu_read(struct hantro_dev *vpu, u32 reg)
{
	return vdev_host_reg_read(vpu->host, reg);
}

struct v4l2_ctrl *v4l2_ctrl_find(struct v4l2_ctrl_handler *hdl, u32 id)
{
	unsigned int i;

	for (i = 0; i < hdl->count; i++)
		if (hdl->ctrls[i].id == id)
			return &hdl->ctrls[i];
	return NULL;
}

int v4l2_ctrl_s_ctrl_compound(struct v4l2_ctrl *ctrl, u32 type, const void *p)
{
	if (ctrl->type != type)
		return -EINVAL;
	memcpy(ctrl->p_cur.p, p, ctrl->size);
	return 0;
}
