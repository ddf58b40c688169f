/* report_md.h -- a run's report (report.h) as Markdown for a CI summary page
 * (GitHub's step summary, GitLab's and Azure's Markdown reports): the verdict,
 * a table of the processes, the conditions judged, the comparison with the
 * baseline and each process's slowest JITs. Every text from the run (method,
 * module and program names, command lines) is escaped, so a name cannot break
 * a table or add markup. Pure: the report's JSON in, text out. */
#ifndef JITSCOPE_REPORT_MD_H
#define JITSCOPE_REPORT_MD_H

#include <jansson.h>
#include <stddef.h>

#define REPORT_MD_MAX (4u * 1024u * 1024u) /* bytes of Markdown at most */
#define REPORT_MD_SLOWEST_OF 16 /* processes whose slowest JITs it lists (most JIT time) */

/* The Markdown of report (malloc'd, NUL-terminated; its length in *length),
 * or NULL out of memory or past REPORT_MD_MAX. */
char *report_markdown(const json_t *report, size_t *length);

#endif
