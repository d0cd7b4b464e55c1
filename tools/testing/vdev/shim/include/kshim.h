/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Userspace stand-ins for the kernel APIs the hantro H.264 encoder backend and
 * the control validation use, so the real driver sources run in the harness.
 * Only what those files call is here, with the kernel's semantics.
 */
#ifndef KSHIM_H_
#define KSHIM_H_

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef u64 dma_addr_t;
typedef unsigned int gfp_t;

#define GFP_KERNEL 0
#define BIT(n) (1UL << (n))
#define GENMASK(h, l) ((~0UL << (l)) & (~0UL >> (8 * sizeof(long) - 1 - (h))))
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define ALIGN(x, a) (((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define max_t(t, a, b) ((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define min_t(t, a, b) ((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define EXPORT_SYMBOL_GPL(s)

/* include/linux/kconfig.h: IS_ENABLED(CONFIG_X) is 1 when CONFIG_X is defined to 1. */
#define __ARG_PLACEHOLDER_1 0,
#define __take_second_arg(__ignored, val, ...) val
#define ____is_defined(arg1_or_junk) __take_second_arg(arg1_or_junk 1, 0)
#define ___is_defined(val) ____is_defined(__ARG_PLACEHOLDER_##val)
#define __is_defined(x) ___is_defined(x)
#define IS_ENABLED(option) __is_defined(option)

struct device {
	void *host;
};

#define dev_warn(dev, ...) kshim_log((dev), __VA_ARGS__)
#define dev_err(dev, ...) kshim_log((dev), __VA_ARGS__)
void kshim_log(struct device *dev, const char *fmt, ...);

static inline void *kzalloc(size_t n, gfp_t gfp)
{
	(void)gfp;
	return calloc(1, n);
}

static inline void kfree(const void *p)
{
	free((void *)p);
}

/* The first byte of @p that is not @c, or NULL (lib/string.c). */
static inline void *memchr_inv(const void *p, int c, size_t n)
{
	const u8 *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != (u8)c)
			return (void *)(b + i);
	return NULL;
}

void *dma_alloc_coherent(struct device *dev, size_t size, dma_addr_t *dma, gfp_t gfp);
void dma_free_coherent(struct device *dev, size_t size, void *cpu, dma_addr_t dma);

/* videobuf2 and V4L2 buffers */
#define V4L2_BUF_FLAG_KEYFRAME 0x00000008
#define V4L2_BUF_FLAG_PFRAME 0x00000010
#define V4L2_BUF_FLAG_ERROR 0x00000040

struct vb2_plane_shim {
	void *cpu;
	dma_addr_t dma;
	size_t size;
	size_t payload;
};

struct vb2_buffer {
	u64 timestamp;
	unsigned int num_planes;
	struct vb2_plane_shim planes[3];
};

struct vb2_v4l2_buffer {
	struct vb2_buffer vb2_buf;
	u32 flags;
};

static inline dma_addr_t vb2_dma_contig_plane_dma_addr(struct vb2_buffer *vb, unsigned int p)
{
	return vb->planes[p].dma;
}

static inline void *vb2_plane_vaddr(struct vb2_buffer *vb, unsigned int p)
{
	return vb->planes[p].cpu;
}

static inline unsigned long vb2_plane_size(struct vb2_buffer *vb, unsigned int p)
{
	return vb->planes[p].size;
}

static inline void vb2_set_plane_payload(struct vb2_buffer *vb, unsigned int p, unsigned long n)
{
	vb->planes[p].payload = n;
}

/* Controls: a flat store of values, searched by id. */
struct v4l2_ctrl {
	u32 id;
	u32 type;
	u32 size;
	union {
		void *p;
	} p_cur;
	s32 val;
};

#define KSHIM_MAX_CTRLS 64

struct v4l2_ctrl_handler {
	struct v4l2_ctrl ctrls[KSHIM_MAX_CTRLS];
	unsigned int count;
};

struct v4l2_ctrl *v4l2_ctrl_find(struct v4l2_ctrl_handler *hdl, u32 id);
int v4l2_ctrl_s_ctrl_compound(struct v4l2_ctrl *ctrl, u32 type, const void *p);

#endif /* KSHIM_H_ */
