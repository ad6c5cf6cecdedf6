// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace-eperm-shim: an LD_PRELOAD library for tests and fixture recipes only.
 *
 * On kernels where the function-tracer control files refuse open() with EPERM
 * (set_ftrace_pid, set_ftrace_filter, set_ftrace_notrace, set_ftrace_notrace_pid),
 * trace-cmd record 3.1.6 cannot run. When, and only when, the real open() of exactly
 * one of those files fails with EPERM, this shim hands back:
 *   - for writes: the null device (the write is accepted and ignored);
 *   - for reads: a memfd holding what an unrestricted kernel prints for "nothing set"
 *     ("no pid", "#### all functions enabled ####", "#### no functions disabled ####").
 * Every other open() goes straight to libc, untouched.
 *
 * Build: cc -shared -fPIC -O2 -o ftrace-eperm-shim.so ftrace-eperm-shim.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const struct {
	const char *name;	/* basename of the control file */
	const char *text;	/* what reading it shows when nothing is set */
} ctl_files[] = {
	{ "set_ftrace_pid",		"no pid\n" },
	{ "set_ftrace_notrace_pid",	"no pid\n" },
	{ "set_ftrace_filter",		"#### all functions enabled ####\n" },
	{ "set_ftrace_notrace",		"#### no functions disabled ####\n" },
};

/* Index of @path's control file in ctl_files[], or -1. */
static int ctl_index(const char *path)
{
	const char *base;
	size_t i;

	if (!path)
		return -1;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (i = 0; i < sizeof(ctl_files) / sizeof(ctl_files[0]); i++)
		if (!strcmp(base, ctl_files[i].name))
			return (int)i;
	return -1;
}

/* The substitute descriptor for control file @idx opened with @flags, or -1. */
static int substitute(int idx, int flags)
{
	const char *text = ctl_files[idx].text;
	size_t len = strlen(text);
	int fd;

	if ((flags & O_ACCMODE) == O_WRONLY)
		return open("/dev/null", O_WRONLY | (flags & O_CLOEXEC));
	fd = memfd_create(ctl_files[idx].name, (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0);
	if (fd < 0)
		return -1;
	if (write(fd, text, len) != (ssize_t)len || lseek(fd, 0, SEEK_SET) < 0) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

static int fixup(int ret, const char *path, int flags)
{
	int idx, saved = errno;

	if (ret >= 0 || saved != EPERM)
		return ret;
	idx = ctl_index(path);
	if (idx < 0)
		return ret;
	ret = substitute(idx, flags);
	if (ret < 0)
		errno = saved;
	return ret;
}

static mode_t mode_arg(int flags, va_list ap)
{
	if (flags & (O_CREAT | O_TMPFILE))
		return (mode_t)va_arg(ap, int);
	return 0;
}

#define WRAP_OPEN(fn)							\
int fn(const char *path, int flags, ...)				\
{									\
	static int (*real)(const char *, int, ...);			\
	va_list ap;							\
	mode_t mode;							\
									\
	if (!real)							\
		real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, #fn); \
	va_start(ap, flags);						\
	mode = mode_arg(flags, ap);					\
	va_end(ap);							\
	return fixup(real(path, flags, mode), path, flags);		\
}

#define WRAP_OPENAT(fn)							\
int fn(int dirfd, const char *path, int flags, ...)			\
{									\
	static int (*real)(int, const char *, int, ...);		\
	va_list ap;							\
	mode_t mode;							\
									\
	if (!real)							\
		real = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, #fn); \
	va_start(ap, flags);						\
	mode = mode_arg(flags, ap);					\
	va_end(ap);							\
	return fixup(real(dirfd, path, flags, mode), path, flags);	\
}

int open(const char *path, int flags, ...);
int open64(const char *path, int flags, ...);
int openat(int dirfd, const char *path, int flags, ...);
int openat64(int dirfd, const char *path, int flags, ...);

WRAP_OPEN(open)
WRAP_OPEN(open64)
WRAP_OPENAT(openat)
WRAP_OPENAT(openat64)
