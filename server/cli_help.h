/* cli_help.h -- the help texts of the `jitscope` command line, its exit codes
 * and its version (cli_help.c). main.c parses the options (cli.h) and calls
 * these. */
#ifndef JITSCOPE_CLI_HELP_H
#define JITSCOPE_CLI_HELP_H

#include <stdio.h>

/* The exit codes the command line documents (run also exits with its app's). */
#define CLI_EXIT_FAILED 1
#define CLI_EXIT_USAGE 2
#define CLI_EXIT_CONDITION 4 /* run --fail-on: a condition held (report_cli.h) */

/* The help of one command ("run", "attach", "detach", "ps", "serve"), or the
 * global help for NULL or a word that is no command. */
void cli_usage(FILE *out, const char *command);
void cli_version(FILE *out);

/* 1 for "-h" / "--help"; for "--version" / "version"; for a command's name. */
int cli_is_help(const char *arg);
int cli_is_version(const char *arg);
int cli_is_command(const char *name);

#endif
