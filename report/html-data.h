/* SPDX-License-Identifier: GPL-2.0 */
/*
 * html-data: the report's sections that come from the replay and the capture rather
 * than from the frames: the model's fidelity at each snapshot, anomalies, lost
 * events, the real contiguous attempts, and what earlier runs stored (predictions
 * for the timeline, check and verify results). Written as keys of the report's JSON
 * object (report/html.h).
 */
#ifndef BC_HTML_DATA_H
#define BC_HTML_DATA_H

struct json;
struct replay;
struct tdb;

/* @rp or @db may be NULL (a synthetic layout): their keys are written empty.
 * Return: 0, or a negative bc_err. */
int html_data_write(struct json *j, struct replay *rp, struct tdb *db);

#endif
