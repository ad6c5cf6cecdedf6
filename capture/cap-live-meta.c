// SPDX-License-Identifier: GPL-2.0
/*
 * cap-live-meta.c - what a recording says about itself: meta rows at the start
 * (tool, kernel, machine, orders, buffer, events, command) and at the end (times,
 * loss, stop signal, the command's status), and the pid -> comm table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <tracefs.h>

#include "capture/cap-live-local.h"
#include "common/err.h"
#include "db/tdb.h"

/* pid -> comm from the kernel's saved_cmdlines ("PID COMM" lines). */
int live_store_comms(struct live *lv)
{
	char *text, *line, *save = NULL;
	int ret = 0;

	text = tracefs_instance_file_read(NULL, "saved_cmdlines", NULL);
	if (!text)
		return 0;	/* optional */
	for (line = strtok_r(text, "\n", &save); line && !ret; line = strtok_r(NULL, "\n", &save)) {
		char *end;
		long pid = strtol(line, &end, 10);

		if (end == line || *end != ' ' || pid <= 0)
			continue;
		ret = tdb_add_comm(lv->db, (int)pid, end + 1);
	}
	free(text);
	return ret;
}

/* ---- meta ---- */

static int join_words(char *const *argv, char **out)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 0; argv[i]; i++)
		len += strlen(argv[i]) + 1;
	s = malloc(len);
	if (!s)
		return bc_error(BC_E_NOMEM, "out of memory");
	s[0] = 0;
	for (i = 0; argv[i]; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	*out = s;
	return 0;
}

/* pageblock_order from pagetypeinfo, max_page_order from buddyinfo's columns. */
static void machine_orders(int *pageblock_order, int *max_page_order)
{
	char line[512];
	FILE *fp;

	*pageblock_order = *max_page_order = -1;
	fp = fopen("/proc/pagetypeinfo", "re");
	if (fp) {
		while (fgets(line, sizeof(line), fp))
			if (sscanf(line, "Page block order: %d", pageblock_order) == 1)
				break;
		fclose(fp);
	}
	fp = fopen("/proc/buddyinfo", "re");
	if (fp) {
		if (fgets(line, sizeof(line), fp)) {
			/* "Node 0, zone      DMA  n0 n1 ... nMAX" */
			char *p = strstr(line, "zone");
			int words = 0;

			if (p) {
				p += 4;
				while (*p) {
					while (*p == ' ' || *p == '\t' || *p == '\n')
						p++;
					if (!*p)
						break;
					words++;
					while (*p && *p != ' ' && *p != '\t' && *p != '\n')
						p++;
				}
				if (words >= 2)
					*max_page_order = words - 2;	/* minus the zone name */
			}
		}
		fclose(fp);
	}
}

/* One line of a cpu0 cache attribute file; 0, or -1 when absent. */
static int cache_attr(unsigned int index, const char *name, char *buf, size_t size)
{
	char path[128];
	FILE *fp;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%u/%s", index, name);
	fp = fopen(path, "re");
	if (!fp)
		return -1;
	if (!fgets(buf, (int)size, fp))
		buf[0] = 0;
	fclose(fp);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* Cpus in a cpu list ("0-3,8"). */
static long cpu_list_weight(const char *s)
{
	long n = 0;

	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s)
			break;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		n += b >= a ? b - a + 1 : 0;
		s = *end == ',' ? end + 1 : end;
		if (*s && *s != ',' && (*s < '0' || *s > '9'))
			break;
	}
	return n;
}

/*
 * cpu0's share of its last-level data cache in kB, as cacheinfo's
 * per_cpu_data_slice_size (the size over the cpus sharing it); -1 when sysfs does
 * not say. The kernel keeps a pcp batch from a high-order free's drain above 3 batches.
 */
static long cpu_data_slice_kb(void)
{
	long best_level = -1, slice = -1;
	char level[16], type[32], size[32], shared[256];

	for (unsigned int i = 0; i < 16; i++) {
		long l, kb, n;

		if (cache_attr(i, "level", level, sizeof(level)))
			break;
		if (cache_attr(i, "type", type, sizeof(type)) ||
		    cache_attr(i, "size", size, sizeof(size)) ||
		    cache_attr(i, "shared_cpu_list", shared, sizeof(shared)))
			continue;
		if (strcmp(type, "Data") && strcmp(type, "Unified"))
			continue;
		l = strtol(level, NULL, 10);
		kb = strtol(size, NULL, 10);
		n = cpu_list_weight(shared);
		if (l > best_level && kb > 0 && n > 0) {
			best_level = l;
			slice = kb / n;
		}
	}
	return slice;
}

int live_store_start_meta(struct live *lv, const char *const *events)
{
	int pageblock_order, max_page_order;
	struct utsname u;
	char *s = NULL;
	int ret;

	ret = tdb_set_meta(lv->db, "tool", "bigchunk record");
	if (!ret)
		ret = tdb_set_meta(lv->db, "source", "record");
	if (!ret)
		ret = tdb_set_meta(lv->db, "clock", "mono");
	if (!ret && uname(&u) == 0) {
		ret = tdb_set_meta(lv->db, "kernel_release", u.release);
		if (!ret)
			ret = tdb_set_meta(lv->db, "machine", u.machine);
	}
	if (!ret)
		ret = tdb_set_meta_int(lv->db, "cpus", lv->ncpus);
	if (!ret)
		ret = tdb_set_meta_int(lv->db, "page_size", sysconf(_SC_PAGESIZE));
	machine_orders(&pageblock_order, &max_page_order);
	if (!ret && pageblock_order >= 0)
		ret = tdb_set_meta_int(lv->db, "pageblock_order", pageblock_order);
	if (!ret && max_page_order >= 0)
		ret = tdb_set_meta_int(lv->db, "max_page_order", max_page_order);
	if (!ret && cpu_data_slice_kb() > 0)
		ret = tdb_set_meta_int(lv->db, "cpu_data_slice_kb", cpu_data_slice_kb());
	if (!ret)
		ret = tdb_set_meta_int(lv->db, "buffer_kb_per_cpu",
				       tracefs_instance_get_buffer_size(lv->inst, lv->cpus[0].cpu));
	if (!ret)
		ret = tdb_set_meta_int(lv->db, "stacks", lv->o->stacks);
	if (!ret && lv->o->cmdline)
		ret = tdb_set_meta(lv->db, "command", lv->o->cmdline);
	if (!ret && lv->o->argv) {
		ret = join_words(lv->o->argv, &s);
		if (!ret)
			ret = tdb_set_meta(lv->db, "workload", s);
		free(s);
		s = NULL;
	}
	if (!ret) {
		ret = join_words((char *const *)events, &s);
		if (!ret)
			ret = tdb_set_meta(lv->db, "events", s);
		free(s);
	}
	return ret;
}

int live_store_end_meta(struct live *lv)
{
	struct cap_live_result *r = lv->res;
	int ret;

	ret = tdb_set_meta_int(lv->db, "started_ns", (int64_t)lv->t_on);
	if (!ret)
		ret = tdb_set_meta_int(lv->db, "ended_ns", (int64_t)lv->t_off);
	if (!ret)
		ret = tdb_set_meta_int(lv->db, "lost_kernel", (int64_t)r->lost_kernel);
	if (!ret && r->stop_signal)
		ret = tdb_set_meta_int(lv->db, "stop_signal", r->stop_signal);
	if (!ret && r->child_pid) {
		ret = tdb_set_meta_int(lv->db, "workload_pid", r->child_pid);
		if (!ret && lv->child_reaped)
			ret = tdb_set_meta_int(lv->db, "workload_status", r->child_status);
	}
	return ret;
}
