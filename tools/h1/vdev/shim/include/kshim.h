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
/* linux/minmax.h, without its type checks (the kernel builds make them). */
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#define clamp(v, lo, hi) min(max(v, lo), hi)
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
/* Debug messages are off, as without dynamic debug; the arguments still compile. */
#define dev_dbg(dev, ...) do { if (0) kshim_log((dev), __VA_ARGS__); } while (0)
void kshim_log(struct device *dev, const char *fmt, ...);

#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))
#define WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define xchg(p, v) __atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST)

/* include/linux/list.h, what the backend walks. */
struct list_head {
	struct list_head *next, *prev;
};

static inline void INIT_LIST_HEAD(struct list_head *l)
{
	l->next = l;
	l->prev = l;
}

static inline void list_add(struct list_head *n, struct list_head *head)
{
	n->next = head->next;
	n->prev = head;
	head->next->prev = n;
	head->next = n;
}

#define list_for_each_entry(pos, head, member)                                   \
	for (pos = container_of((head)->next, __typeof__(*pos), member);          \
	     &pos->member != (head);                                              \
	     pos = container_of(pos->member.next, __typeof__(*pos), member))

/* A media request: its objects are the buffers and the controls it sets. */
struct media_request_object {
	struct list_head list;
	bool is_buffer;
};

struct media_request {
	struct list_head objects;
};

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

/* As include/media/videobuf2-core.h has it. */
enum vb2_buffer_state {
	VB2_BUF_STATE_DEQUEUED,
	VB2_BUF_STATE_IN_REQUEST,
	VB2_BUF_STATE_PREPARING,
	VB2_BUF_STATE_QUEUED,
	VB2_BUF_STATE_ACTIVE,
	VB2_BUF_STATE_DONE,
	VB2_BUF_STATE_ERROR,
};

struct vb2_queue {
	void *drv_priv;
};

struct vb2_buffer {
	struct vb2_queue *vb2_queue;
	u64 timestamp;
	unsigned int num_planes;
	struct vb2_plane_shim planes[3];
	struct media_request_object req_obj;
};

static inline void *vb2_get_drv_priv(struct vb2_queue *q)
{
	return q->drv_priv;
}

static inline bool vb2_request_object_is_buffer(struct media_request_object *obj)
{
	return obj->is_buffer;
}

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
	/* v4l2_ctrl_grab(): setting it fails with -EBUSY. */
	bool grabbed;
};

#define KSHIM_MAX_CTRLS 64

/*
 * A device's handler, or a request's: then @req_parent is the device's and
 * @ctrls holds the controls the request sets.
 */
struct v4l2_ctrl_handler {
	struct v4l2_ctrl ctrls[KSHIM_MAX_CTRLS];
	unsigned int count;
	struct media_request_object req_obj;
	struct v4l2_ctrl_handler *req_parent;
};

struct v4l2_ctrl *v4l2_ctrl_find(struct v4l2_ctrl_handler *hdl, u32 id);
int v4l2_ctrl_s_ctrl_compound(struct v4l2_ctrl *ctrl, u32 type, const void *p);

static inline void v4l2_ctrl_grab(struct v4l2_ctrl *ctrl, bool grabbed)
{
	ctrl->grabbed = grabbed;
}

static inline struct v4l2_ctrl_handler *
v4l2_ctrl_request_hdl_find(struct media_request *req, struct v4l2_ctrl_handler *parent)
{
	struct media_request_object *obj;

	list_for_each_entry(obj, &req->objects, list) {
		struct v4l2_ctrl_handler *hdl;

		if (obj->is_buffer)
			continue;
		hdl = container_of(obj, struct v4l2_ctrl_handler, req_obj);
		if (hdl->req_parent == parent)
			return hdl;
	}
	return NULL;
}

static inline struct v4l2_ctrl *v4l2_ctrl_request_hdl_ctrl_find(struct v4l2_ctrl_handler *hdl,
								 u32 id)
{
	return v4l2_ctrl_find(hdl, id);
}

static inline void v4l2_ctrl_request_hdl_put(struct v4l2_ctrl_handler *hdl)
{
	(void)hdl;
}

#endif /* KSHIM_H_ */
