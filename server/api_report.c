/* api_report.c -- GET /api/sessions/{id}/report: what the run did, the same
 * document `jitscope run --report` writes (report.h), as JSON, or as Markdown
 * with ?format=md. A run's root session answers for the run (its children
 * with it); another session for itself. No baseline here: comparisons are
 * the command line's (report_cond.h). */
#include <stdlib.h>
#include <string.h>

#include "api_util.h"
#include "report.h"
#include "report_md.h"

int api_report_get(api_call *c)
{
    const char *format = c->req->arg(c->req->ctx, "format");
    char err[256];
    int status, markdown = format && strcmp(format, "md") == 0;
    json_t *report;

    if (format && !markdown && strcmp(format, "json") != 0)
        return api_fail(c, 400, "format must be json or md");
    report = report_build(c->session_id, &status, err, sizeof(err));
    if (!report)
        return api_fail(c, status, "%s", err);
    if (!markdown) {
        c->reply->json = report;
        return 200;
    }
    c->reply->text = report_markdown(report, &c->reply->text_length);
    json_decref(report);
    if (!c->reply->text)
        return api_fail(c, 503, "the report is too large as Markdown, or out of memory");
    c->reply->content_type = "text/markdown; charset=utf-8";
    return 200;
}
