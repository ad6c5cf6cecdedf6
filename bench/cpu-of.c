// SPDX-License-Identifier: GPL-2.0
/*
 * cpu-of: run a command with its stdout sent to /dev/null and print the CPU time
 * (user + system) it and its waited-for children used, from wait4()'s rusage, in ns.
 * Wall-clock time on a shared machine counts other processes' work; CPU time does not,
 * so the ratio of two commands' CPU times measured in the same run is the fair one.
 *
 * Usage: cpu-of CMD [ARG]...
 * Prints "cpu_ns N wall_ns W"; exits with the command's status (127 if it could not run).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long tv_ns(struct timeval tv)
{
	return (long long)tv.tv_sec * 1000000000LL + (long long)tv.tv_usec * 1000LL;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct rusage ru;
	long long t0;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: cpu-of CMD [ARG]...\n");
		return 2;
	}
	t0 = now_ns();
	pid = fork();
	if (pid < 0) {
		perror("cpu-of: fork");
		return 127;
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			close(fd);
		}
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("cpu-of: wait4");
		return 127;
	}
	printf("cpu_ns %lld wall_ns %lld\n", tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime),
	       now_ns() - t0);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}
