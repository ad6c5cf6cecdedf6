// SPDX-License-Identifier: GPL-2.0
/*
 * cap-live-child.c - the command recorded ('bigchunk record -- COMMAND'): started once
 * tracing is on, polled by the main loop, and ended (SIGTERM, then SIGKILL) when
 * recording stops first.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture/cap-live-local.h"
#include "common/err.h"

int live_start_child(struct live *lv)
{
	int pfd[2], err = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return bc_error(BC_E_IO, "pipe: %m");
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return bc_error(BC_E_NOMEM, "fork: %m");
	}
	if (pid == 0) {
		struct sigaction dfl = { .sa_handler = SIG_DFL };
		sigset_t none;

		close(pfd[0]);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		sigemptyset(&dfl.sa_mask);
		sigaction(SIGINT, &dfl, NULL);
		sigaction(SIGTERM, &dfl, NULL);
		sigaction(SIGHUP, &dfl, NULL);
		/*
		 * tracefs_cpu_open() leaves trace_pipe_raw without O_CLOEXEC: a process the
		 * command leaves behind would hold the instance busy (rmdir EBUSY).
		 */
		if (pfd[1] > 3)
			close_range(3, (unsigned int)pfd[1] - 1, 0);
		close_range((unsigned int)pfd[1] + 1, ~0u, 0);
		execvp(lv->o->argv[0], lv->o->argv);
		err = errno;
		if (write(pfd[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pfd[1]);
	do {
		n = read(pfd[0], &err, sizeof(err));
	} while (n < 0 && errno == EINTR);
	close(pfd[0]);
	lv->child = pid;
	lv->res->child_pid = pid;
	if (n == (ssize_t)sizeof(err)) {
		waitpid(pid, &lv->res->child_status, 0);
		lv->child_reaped = true;
		errno = err;
		return bc_error(err == ENOENT ? BC_E_NOENT : BC_E_PERM, "cannot run '%s': %m",
				lv->o->argv[0]);
	}
	return 0;
}

/* Return: true once the command has exited (reaping it). */
bool live_child_exited(struct live *lv)
{
	pid_t r;

	if (!lv->child || lv->child_reaped)
		return lv->child_reaped;
	r = waitpid(lv->child, &lv->res->child_status, WNOHANG);
	if (r == lv->child)
		lv->child_reaped = true;
	return lv->child_reaped;
}

/* Recording stopped before the command did: SIGTERM, then SIGKILL after a while. */
void live_end_child(struct live *lv)
{
	uint64_t deadline;

	if (!lv->child || live_child_exited(lv))
		return;
	kill(lv->child, SIGTERM);
	lv->res->child_killed = true;
	deadline = mono_ns() + CHILD_TERM_WAIT_NS;
	while (!live_child_exited(lv) && mono_ns() < deadline)
		sleep_ns(10 * 1000 * 1000);
	if (!live_child_exited(lv)) {
		kill(lv->child, SIGKILL);
		if (waitpid(lv->child, &lv->res->child_status, 0) == lv->child)
			lv->child_reaped = true;
	}
}
