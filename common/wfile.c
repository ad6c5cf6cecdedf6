// SPDX-License-Identifier: GPL-2.0
/*
 * Private new files (see wfile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/err.h"
#include "common/wfile.h"

int bc_create_private(const char *path, int flags)
{
	int fd = open(path, (flags & O_RDWR ? O_RDWR : O_WRONLY) | O_CREAT | O_EXCL |
		      O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0) {
		if (errno == EEXIST)
			return bc_error(BC_E_INVAL, "%s: file exists (a file or a symlink): "
					"bigchunk writes only new files; remove it or choose "
					"another name", path);
		return bc_error(errno == EACCES ? BC_E_PERM : errno == ENOSPC ? BC_E_NOSPC :
				BC_E_IO, "%s: cannot create: %m", path);
	}
	/* a umask like 0277 would leave it unwritable; never wider than 0600 either */
	if (fchmod(fd, 0600) < 0) {
		int ret = bc_error(BC_E_IO, "%s: cannot set mode 0600: %m", path);

		close(fd);
		unlink(path);
		return ret;
	}
	return fd;
}

int bc_fcreate_private(const char *path, FILE **out)
{
	int fd = bc_create_private(path, 0);

	*out = NULL;
	if (fd < 0)
		return fd;
	*out = fdopen(fd, "w");
	if (!*out) {
		int ret = bc_error(BC_E_NOMEM, "%s: %m", path);

		close(fd);
		unlink(path);
		return ret;
	}
	return 0;
}
