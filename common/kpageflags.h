/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kpageflags: the bits of /proc/kpageflags, in one place. The exported ones come from
 * the kernel's uapi header (include/uapi/linux/kernel-page-flags.h, Debian's
 * linux-libc-dev); the kernel-internal ones that /proc/kpageflags also shows with
 * CONFIG_PROC_PAGE_MONITOR (include/linux/kernel-page-flags.h) are added here.
 */
#ifndef BC_KPAGEFLAGS_H
#define BC_KPAGEFLAGS_H

#include <linux/kernel-page-flags.h>

#ifndef KPF_RESERVED
#define KPF_RESERVED		32
#define KPF_MLOCKED		33
#define KPF_MAPPEDTODISK	34
#define KPF_PRIVATE		35
#define KPF_PRIVATE_2		36
#define KPF_OWNER_PRIVATE	37
#define KPF_ARCH		38
#define KPF_UNCACHED		39
#define KPF_SOFTDIRTY		40
#define KPF_ARCH_2		41
#endif

/* The mask of one bit, as kpageflags words are tested. */
#define KPF_BIT(b)		(1ull << (b))

#endif
