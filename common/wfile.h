/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Creating the files bigchunk writes. They may hold physical addresses and are written
 * where a user points, so every one is new and private: mode 0600 whatever the umask,
 * O_CREAT|O_EXCL (an existing file is never truncated or appended to) and O_NOFOLLOW
 * (a symlink planted at the path is not followed). Writers that replace a file write a
 * new temporary through these and rename() it into place.
 */
#ifndef BC_WFILE_H
#define BC_WFILE_H

#include <stdio.h>

/**
 * bc_create_private() - create @path for writing, as above; @flags adds to O_WRONLY
 * (O_RDWR for read-write).
 * Return: the file descriptor, or a negative bc_err naming @path (an existing file or
 * symlink: -BC_E_INVAL "file exists").
 */
int bc_create_private(const char *path, int flags);

/* The same as a stdio stream for writing. Return: 0 and *@out, or a negative bc_err. */
int bc_fcreate_private(const char *path, FILE **out);

#endif
