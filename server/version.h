/* version.h -- jitscope's version, as GET /api/config reports it (api.c), `jitscope
 * --version` prints it (cli.c), a report names it (report.c) and
 * as exports name their maker (profile_export.c). One place to change. */
#ifndef JITSCOPE_VERSION_H
#define JITSCOPE_VERSION_H

#define JITSCOPE_VERSION "0.1"

#endif
