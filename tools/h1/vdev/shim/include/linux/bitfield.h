/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Harness stand-in for include/linux/bitfield.h: FIELD_PREP() and FIELD_GET()
 * with the kernel's results (the compile-time checks are left out).
 */
#ifndef KSHIM_LINUX_BITFIELD_H_
#define KSHIM_LINUX_BITFIELD_H_

#include <kshim.h>

#define FIELD_PREP(_mask, _val)						\
	({								\
		__typeof__(_mask) __m = (_mask);			\
		((__typeof__(__m))(_val) << __builtin_ctzll(__m)) & __m; \
	})

#define FIELD_GET(_mask, _reg)						\
	({								\
		__typeof__(_mask) __m = (_mask);			\
		(__typeof__(__m))(((_reg) & __m) >> __builtin_ctzll(__m)); \
	})

#endif /* KSHIM_LINUX_BITFIELD_H_ */
