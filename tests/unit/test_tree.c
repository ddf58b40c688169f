/* test_tree.c -- unit tests for process trees: server/proc.c (the stat parser
 * on hand-written lines, and the /proc readers on processes this test makes:
 * itself, a running child, a zombie, a reaped pid; a thread found by its name)
 * and the registry's run
 * sessions in server/sessions.c (children carry their root's token and id; a
 * token finds only the root; a child is found again by pid; the sweep ends a
 * child whose process is gone once its link is closed, and leaves the
 * launched process's session to the reaper).
 * Build: make build/tests/test_tree && build/tests/test_tree
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "proc.h"
#include "sessions.h"

static int parse(const char *line, char *state, pid_t *ppid)
{
    return proc_parse_stat(line, strlen(line), state, ppid);
}

TEST(stat_lines)
{
    char state = 0;
    pid_t ppid = 0;

    CHECK(parse("123 (dotnet) S 45 123 45 0 -1 4194560 ...", &state, &ppid) == 0, "plain line");
    CHECK(state == 'S' && ppid == 45, "state %c ppid %d", state, (int)ppid);
    CHECK(parse("7 (a) b) (c) R 1 7 7\n", &state, &ppid) == 0, "comm with ') ('");
    CHECK(state == 'R' && ppid == 1, "the last ')' ends comm: %c %d", state, (int)ppid);
    CHECK(parse("9 (.NET TP Worker) Z 0 9", &state, &ppid) == 0 && state == 'Z' && ppid == 0,
          "a zombie whose parent is 0");
    CHECK(parse("", &state, &ppid) == -1, "empty");
    CHECK(parse("123 dotnet S 45", &state, &ppid) == -1, "no parentheses");
    CHECK(parse("123 (dotnet)", &state, &ppid) == -1, "cut after comm");
    CHECK(parse("123 (dotnet) S", &state, &ppid) == -1, "cut after state");
    CHECK(parse("123 (dotnet) S x5", &state, &ppid) == -1, "parent not a number");
    CHECK(parse("123 (dotnet) S 45x 1", &state, &ppid) == -1, "junk after the parent");
    CHECK(parse("123 (dotnet) S 99999999999 1", &state, &ppid) == -1, "parent out of range");
    CHECK(parse("123 (dotnet)S 45 1", &state, &ppid) == -1, "no space after comm");
    /* not NUL-terminated: the parser stays inside len */
    CHECK(proc_parse_stat("1 (x) S 42 7", 10, &state, &ppid) == 0 && ppid == 42,
          "length-bounded: %d", (int)ppid);
    CHECK(proc_parse_stat("1 (x) S 4", 8, &state, &ppid) == -1, "cut before the parent");
}

/* Starts argv, whose program prints a line first thing; returns once that
 * line came. A close-on-exec pipe is not enough: the kernel closes it in
 * execve before the new image's arguments are set up (/proc/PID/cmdline reads
 * empty in between); the program itself speaking means exec is done. */
static pid_t start_exec(char *const argv[])
{
    int fds[2];
    char byte = 0;
    pid_t pid;

    if (pipe2(fds, O_CLOEXEC) != 0)
        return -1;
    pid = fork();
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO); /* dup2 clears close-on-exec on the copy */
        execvp(argv[0], argv);
        _exit(127);
    }
    close(fds[1]);
    while (pid > 0 && byte != '\n' && read(fds[0], &byte, 1) == 1)
        ;
    close(fds[0]);
    return pid;
}

/* Waits until pid has exited but leaves it unreaped: a zombie. */
static void wait_zombie(pid_t pid)
{
    siginfo_t info;

    waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT);
}

static void *park(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

TEST(proc_readers)
{
    pthread_t named;
    char line[256];
    char *argv[] = {"sh", "-c", "echo started; sleep 30; :", "\xff\xfe", NULL};
    pid_t child, zombie;
    int status;

    CHECK(proc_parent_pid(getpid()) == getppid(), "our parent");
    CHECK(!proc_is_gone(getpid()), "we run");
    CHECK(proc_command_line(getpid(), line, sizeof(line)) == 0 && strstr(line, "test_tree"),
          "our command line: %s", line);
    CHECK(proc_command_line(getpid(), line, 5) == 0 && strlen(line) <= 4, "cut to the buffer");
    CHECK(proc_is_gone(0) && proc_parent_pid(-1) == 0, "no pid");
    CHECK(proc_has_thread(getpid(), "tree-named") == 0, "no thread of that name yet");
    CHECK(pthread_create(&named, NULL, park, NULL) == 0 &&
              pthread_setname_np(named, "tree-named") == 0,
          "a named thread");
    CHECK(proc_has_thread(getpid(), "tree-named") == 1, "found by its name");
    CHECK(proc_has_thread(getpid(), "tree-name") == 0 &&
              proc_has_thread(getpid(), "tree-named-") == 0,
          "the whole name only");
    pthread_cancel(named);
    pthread_join(named, NULL);
    CHECK(proc_has_thread(getpid(), "tree-named") == 0, "gone with its thread");
    CHECK(proc_has_thread(0, "x") == 0 && proc_has_thread(4000000, "x") == 0, "no such process");

    child = start_exec(argv);
    CHECK(child > 0, "started");
    CHECK(proc_parent_pid(child) == getpid(), "the child's parent is us");
    CHECK(!proc_is_gone(child), "the child runs");
    CHECK(proc_command_line(child, line, sizeof(line)) == 0 &&
              strcmp(line, "sh -c echo started; sleep 30; : ??") == 0,
          "arguments joined, bytes that are not UTF-8 replaced: '%s'", line);
    kill(child, SIGKILL);
    wait_zombie(child);
    CHECK(proc_is_gone(child), "a killed, unreaped child (a zombie) is gone");
    waitpid(child, &status, 0);
    CHECK(proc_is_gone(child), "a reaped pid is gone");
    CHECK(proc_command_line(child, line, sizeof(line)) == -1 && line[0] == '\0', "no command line");

    zombie = fork();
    if (zombie == 0)
        _exit(0);
    wait_zombie(zombie);
    CHECK(proc_is_gone(zombie), "an exited, unreaped child is gone");
    waitpid(zombie, &status, 0);
}

TEST(run_sessions)
{
    session *root, *a, *b, *again, *other;
    pid_t gone;
    int status;

    sessions_lock();
    root = sessions_create(SESSION_MODE_RUN, 1000, "dotnet build");
    other = sessions_create(SESSION_MODE_ATTACH, 2000, "dotnet other.dll");
    CHECK(root && other, "created");
    CHECK(root->root_id == root->id && other->root_id == other->id, "a session is its own root");

    a = sessions_create_child(root, getpid(), 1000, "MSBuild /nodemode:1");
    b = sessions_create_child(root, 0x7ffffff0, getpid(), "VBCSCompiler");
    CHECK(a && b && a->id != b->id && a->id != root->id, "children get their own ids");
    CHECK(a->root_id == root->id && b->root_id == root->id, "grouped under the root");
    CHECK(a->mode == SESSION_MODE_RUN && a->parent_pid == 1000, "mode and parent");
    CHECK(memcmp(a->token, root->token, WIRE_TOKEN_LEN) == 0, "the run's token");
    CHECK(sessions_by_token(root->token, WIRE_TOKEN_LEN) == root, "the token finds the root only");
    CHECK(sessions_by_token(root->token, WIRE_TOKEN_LEN - 1) == NULL,
          "a short token finds nothing");
    CHECK(sessions_child_by_pid(root->id, getpid()) == a, "a child by pid");
    CHECK(sessions_child_by_pid(root->id, 1000) == NULL, "the root is not its own child");
    CHECK(sessions_child_by_pid(other->id, getpid()) == NULL, "only under its own root");

    /* the sweep: a child whose process is gone ends once no link is bound */
    gone = fork();
    if (gone == 0)
        _exit(0);
    waitpid(gone, &status, 0);
    again = sessions_create_child(root, gone, getpid(), "testhost");
    CHECK(again != NULL, "a child for a pid that is gone");
    again->state = SESSION_DISCONNECTED;
    again->link_id = 5;
    root->state = SESSION_LIVE;
    root->pid = gone; /* the launched process is the reaper's, never the sweep's */
    a->state = SESSION_LIVE;
    sessions_unlock();
    sessions_sweep();
    sessions_lock();
    CHECK(again->state == SESSION_DISCONNECTED, "not while its link is bound (data still to read)");
    again->link_id = 0;
    sessions_unlock();
    sessions_sweep();
    sessions_lock();
    CHECK(again->state == SESSION_EXITED && again->ended_ns > 0, "ended once the link is gone");
    CHECK(root->state == SESSION_LIVE, "the root is left to the reaper");
    CHECK(a->state == SESSION_LIVE, "a child that still runs stays");
    sessions_free_all();
    sessions_unlock();
}

/* A full table makes room by forgetting the oldest ended session, but never
 * the ended root of a run that goes on (its token finds the run's sessions). */
TEST(full_table_keeps_a_live_runs_root)
{
    session *root, *child, *old, *more;
    int root_id, old_id, i;

    sessions_lock();
    root = sessions_create(SESSION_MODE_RUN, 3000, "dotnet build");
    root_id = root->id;
    root->state = SESSION_EXITED; /* the launched process is gone... */
    child = sessions_create_child(root, 3001, 3000, "VBCSCompiler");
    child->state = SESSION_LIVE; /* ...its compiler server is not */
    old = sessions_create(SESSION_MODE_ATTACH, 4000, "dotnet old.dll");
    old->state = SESSION_EXITED;
    old_id = old->id;
    for (i = 3; i < SESSIONS_MAX; i++)
        sessions_create(SESSION_MODE_ATTACH, 5000 + i, "dotnet busy.dll")->state = SESSION_LIVE;
    CHECK(sessions_count() == SESSIONS_MAX, "table full (%zu)", sessions_count());
    more = sessions_create(SESSION_MODE_ATTACH, 6000, "dotnet new.dll");
    CHECK(more != NULL, "room made for a new session");
    CHECK(sessions_get(root_id) == root && sessions_get(old_id) == NULL,
          "the other ended session went, the run's root stayed");
    CHECK(sessions_by_token(root->token, WIRE_TOKEN_LEN) == root, "the run's token still works");
    sessions_free_all();
    sessions_unlock();
}

static const check_test tests[] = {
    TEST_ENTRY(stat_lines),
    TEST_ENTRY(proc_readers),
    TEST_ENTRY(run_sessions),
    TEST_ENTRY(full_table_keeps_a_live_runs_root),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
