/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Harness stand-in: the annotations the uAPI headers of the tree carry until
 * make headers_install strips them.
 */
#ifndef KSHIM_LINUX_COMPILER_H_
#define KSHIM_LINUX_COMPILER_H_
#define __user
#define __force
#define __iomem
#endif
