/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Error codes and the last-error message shared by every layer.
 *
 * Library layers (capture, db, model, replay, checkers) never exit: they return 0 or a
 * negative enum bc_err and leave a message naming the file, offset or event in a
 * thread-local buffer, read with bc_errmsg(). Only cli/ turns that into an exit status.
 */
#ifndef BC_ERR_H
#define BC_ERR_H

#define BC_ERRORS							\
	_E(OK,		"success")					\
	_E(NOMEM,	"out of memory")				\
	_E(IO,		"input/output error")				\
	_E(FORMAT,	"malformed input")				\
	_E(TRUNCATED,	"truncated input")				\
	_E(VERSION,	"unsupported version")				\
	_E(DB,		"database error")				\
	_E(PERM,	"permission denied")				\
	_E(NOTRACEFS,	"tracefs not available")			\
	_E(NOENT,	"not found")					\
	_E(INVAL,	"invalid argument")				\
	_E(NOSPC,	"no space left on device")			\
	_E(INTR,	"interrupted")					\
	_E(BUSY,	"resource busy")

#undef _E
#define _E(code, str) BC_E_##code,
enum bc_err { BC_ERRORS BC_E_MAX };
#undef _E

/* Static description of a code (positive or negative). */
const char *bc_strerror(int err);

/*
 * Record a message for error @err and return -@err, so callers can write
 * "return bc_error(BC_E_IO, "%s: %m", path);". The message is kept per thread until
 * the next call; bc_errmsg() returns it (borrowed).
 */
int bc_error(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *bc_errmsg(void);
/* Prefix the current message with "context: " (e.g. the file name). Returns @ret. */
int bc_error_prefix(int ret, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
