// SPDX-License-Identifier: GPL-2.0
/* Fault switches of the model (model-fault.h): a table of (model, bits). */
#include <stdlib.h>

#include "common/err.h"
#include "model/model-fault.h"

#define MAX_FAULTY 16

static struct {
	const struct model *m;
	unsigned int bits;
} faulty[MAX_FAULTY];

unsigned int model_nr_faulty;

int model_set_faults(struct model *m, unsigned int faults)
{
	int i, free_slot = -1;

	for (i = 0; i < MAX_FAULTY; i++) {
		if (faulty[i].m == m) {
			faulty[i].bits = faults;
			if (!faults) {
				faulty[i].m = NULL;
				model_nr_faulty--;
			}
			return 0;
		}
		if (!faulty[i].m && free_slot < 0)
			free_slot = i;
	}
	if (!faults)
		return 0;
	if (free_slot < 0)
		return bc_error(BC_E_NOMEM, "more than %d models with faults", MAX_FAULTY);
	faulty[free_slot].m = m;
	faulty[free_slot].bits = faults;
	model_nr_faulty++;
	return 0;
}

unsigned int model_get_faults(const struct model *m)
{
	int i;

	for (i = 0; i < MAX_FAULTY; i++)
		if (faulty[i].m == m)
			return faulty[i].bits;
	return 0;
}
