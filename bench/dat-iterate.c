// SPDX-License-Identifier: GPL-2.0
/*
 * dat-iterate: the floor for trace.dat import speed. Opens a trace.dat with
 * libtracecmd and iterates every record of the buffer bigchunk import would pick (the
 * top buffer if it has records, else the first instance), time-ordered across CPUs,
 * reading only each record's type. Prints "records N seconds S open_seconds O"
 * (O: the part spent in tracecmd_open(), a fixed cost of every reader of the file).
 *
 * Usage: dat-iterate TRACE.dat
 */
#include <stdio.h>
#include <time.h>

#include <trace-cmd/trace-cmd.h>

/* Exported by libtracecmd but not declared in its public header. */
int tracecmd_cpus(struct tracecmd_input *handle);
struct tep_record *tracecmd_peek_data(struct tracecmd_input *handle, int cpu);

static unsigned long long nr, type_sum;

static int count_cb(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	nr++;
	type_sum += (unsigned int)tep_data_type(data, rec);
	return 0;
}

/* Peeked, not read: a record read here would be missing from the iteration of @h. */
static int has_records(struct tracecmd_input *h)
{
	int cpu;

	for (cpu = 0; cpu < tracecmd_cpus(h); cpu++)
		if (tracecmd_peek_data(h, cpu))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	struct tracecmd_input *top, *h;
	struct timespec t0, t1, to;

	if (argc != 2) {
		fprintf(stderr, "usage: dat-iterate TRACE.dat\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	tracecmd_set_loglevel(TEP_LOG_NONE);
	top = tracecmd_open(argv[1], TRACECMD_FL_LOAD_NO_PLUGINS |
			    TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	if (!top) {
		fprintf(stderr, "dat-iterate: %s: cannot open\n", argv[1]);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &to);
	h = top;
	if (!has_records(top) && tracecmd_buffer_instances(top) > 0)
		h = tracecmd_buffer_instance_handle(top, 0);
	if (!h) {
		fprintf(stderr, "dat-iterate: %s: cannot open its buffer instance\n", argv[1]);
		return 2;
	}
	tracecmd_iterate_events(h, NULL, 0, count_cb, tracecmd_get_tep(h));
	if (h != top)
		tracecmd_close(h);
	tracecmd_close(top);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("records %llu seconds %.6f open_seconds %.6f\n", nr,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
	       (double)(to.tv_sec - t0.tv_sec) + (double)(to.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
