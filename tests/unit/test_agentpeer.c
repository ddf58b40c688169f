/* test_agentpeer.c -- unit tests for server/agentpeer.c: which names are
 * jitscope agent sockets, what of a note is a URL (hostile notes give none),
 * and the whole look-up on sockets this test makes: a child process connected
 * to a listening socket at DIR/agent.sock (DIR a jitscope-XXXXXX directory
 * with a note) is found with the note's URL; connected elsewhere, or after the
 * listener's side is gone, it is not.
 * Build: make build/tests/test_agentpeer && build/tests/test_agentpeer
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agentpeer.h"
#include "check.h"

static int is_agent(const char *name) { return agentpeer_is_agent_socket(name, strlen(name)); }

TEST(agent_socket_names)
{
    CHECK(is_agent("/tmp/jitscope-AbC123/agent.sock"), "a server's socket in /tmp");
    CHECK(is_agent("/run/user/1000/jitscope-xAY9zq/agent.sock"), "under XDG_RUNTIME_DIR");
    CHECK(!is_agent("/tmp/jitscope-x_Y9zq/agent.sock"), "mkdtemp makes letters and digits only");
    CHECK(is_agent("/tmp/jitscope-0-cbf29ce484222325/agent.sock"), "a data directory's (uid 0)");
    CHECK(is_agent("/run/user/1000/jitscope-1000-0123456789abcdef/agent.sock"), "uid 1000");
    CHECK(!is_agent("/tmp/jitscope-0-cbf29ce48422232/agent.sock"), "15 hex digits");
    CHECK(!is_agent("/tmp/jitscope-0-CBF29CE484222325/agent.sock"), "upper-case hex");
    CHECK(!is_agent("/tmp/jitscope--cbf29ce484222325/agent.sock"), "no uid");
    CHECK(!is_agent("/tmp/jitscope-AbC12/agent.sock"), "5 characters after jitscope-");
    CHECK(!is_agent("/tmp/jitscope-AbC1234/agent.sock"), "7 characters after jitscope-");
    CHECK(!is_agent("/tmp/xjitscope-AbC123/agent.sock"), "another directory name");
    CHECK(!is_agent("/tmp/jitscope-AbC123/agent.socket"), "another file name");
    CHECK(!is_agent("/tmp/jitscope-AbC123/x/agent.sock"), "one level deeper");
    CHECK(!is_agent("jitscope-AbC123/agent.sock"), "a relative name");
    CHECK(!is_agent("/jitscope-A/C123/agent.sock"), "a slash inside the XXXXXX");
    CHECK(!is_agent(""), "empty");
    CHECK(!agentpeer_is_agent_socket("/tmp/jitscope-AbC123/agent.sock\0", 32), "a NUL inside");
    CHECK(!agentpeer_is_agent_socket("\0tmp/jitscope-AbC123/agent.sock", 32), "an abstract name");
}

TEST(note_urls)
{
    char url[32];

    agentpeer_note_url("http://127.0.0.1:8642/\n", 23, url, sizeof(url));
    CHECK(strcmp(url, "http://127.0.0.1:8642/") == 0, "up to the line end (got %s)", url);
    agentpeer_note_url("http://127.0.0.1:8642/", 22, url, sizeof(url));
    CHECK(strcmp(url, "http://127.0.0.1:8642/") == 0, "without a line end");
    agentpeer_note_url("http://a b/\n", 12, url, sizeof(url));
    CHECK(url[0] == '\0', "a space: no URL");
    agentpeer_note_url("http://a\033[2J/\n", 14, url, sizeof(url));
    CHECK(url[0] == '\0', "a control character: no URL");
    agentpeer_note_url("http://\xc3\xa9/\n", 10, url, sizeof(url));
    CHECK(url[0] == '\0', "a byte above ASCII: no URL");
    agentpeer_note_url("http://127.0.0.1:8642/aaaaaaaaaaaaaaaaaaaaa\n", 44, url, sizeof(url));
    CHECK(url[0] == '\0', "longer than the buffer: no URL, not a cut one");
    agentpeer_note_url("", 0, url, sizeof(url));
    CHECK(url[0] == '\0', "empty");
}

/* A listening socket at dir/agent.sock; the fd. */
static int listen_at(const char *dir)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

    snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/agent.sock", dir);
    if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0 || listen(fd, 4) != 0)
        return -1;
    return fd;
}

/* A child that connects to path and sleeps; its pid (connected once accepted). */
static pid_t child_connected_to(const char *path, int listener, int *accepted)
{
    int ready[2];
    char byte;
    pid_t pid;

    if (pipe(ready) != 0)
        return -1;
    pid = fork();
    if (pid == 0) {
        struct sockaddr_un addr = {.sun_family = AF_UNIX};
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
        if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0)
            _exit(1);
        if (write(ready[1], "x", 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    close(ready[1]);
    if (pid < 0 || read(ready[0], &byte, 1) != 1) {
        close(ready[0]);
        return -1;
    }
    close(ready[0]);
    *accepted = accept(listener, NULL, NULL);
    return pid;
}

static void end_child(pid_t pid)
{
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

TEST(find_the_server)
{
    char base[] = "/tmp/jitscope-agentpeer-XXXXXX", dir[96], other[96], note[128], path[108],
         url[AGENTPEER_NOTE_MAX], err[160], sock[160];
    int listener, plain, accepted = -1, rc;
    FILE *f;
    pid_t pid;

    CHECK(mkdtemp(base) != NULL, "a work directory");
    snprintf(dir, sizeof(dir), "%s/jitscope-Ab1234", base);
    snprintf(other, sizeof(other), "%s/something", base);
    CHECK(mkdir(dir, 0700) == 0 && mkdir(other, 0700) == 0, "a server's directory and another");
    snprintf(note, sizeof(note), "%s/" AGENTPEER_NOTE_NAME, dir);
    f = fopen(note, "w");
    CHECK(f && fputs("http://127.0.0.1:9999/\n", f) >= 0 && fclose(f) == 0, "the server's note");
    listener = listen_at(dir);
    plain = listen_at(other);
    CHECK(listener >= 0 && plain >= 0, "listening");

    snprintf(sock, sizeof(sock), "%s/agent.sock", dir);
    pid = child_connected_to(sock, listener, &accepted);
    CHECK(pid > 0 && accepted >= 0, "a child connected to the agent socket");
    rc = agentpeer_find(pid, path, sizeof(path), url, sizeof(url), err, sizeof(err));
    CHECK(rc == 1, "found (%d: %s)", rc, rc < 0 ? err : "");
    CHECK(strcmp(path, sock) == 0, "the agent socket's path (%s)", path);
    CHECK(strcmp(url, "http://127.0.0.1:9999/") == 0, "the note's URL (%s)", url);

    close(accepted); /* the server's end goes: its agent has no server */
    rc = agentpeer_find(pid, path, sizeof(path), url, sizeof(url), err, sizeof(err));
    CHECK(rc == 0 && !path[0] && !url[0], "not found once the server's end is closed (%d)", rc);
    end_child(pid);

    snprintf(sock, sizeof(sock), "%s/agent.sock", other);
    pid = child_connected_to(sock, plain, &accepted);
    CHECK(pid > 0 && accepted >= 0, "a child connected elsewhere");
    rc = agentpeer_find(pid, path, sizeof(path), url, sizeof(url), err, sizeof(err));
    CHECK(rc == 0, "a socket not in a jitscope directory is not an agent's (%d)", rc);
    close(accepted);
    end_child(pid);

    rc = agentpeer_find(getpid(), path, sizeof(path), url, sizeof(url), err, sizeof(err));
    CHECK(rc == 0, "this process has no agent connection (%d)", rc);
    rc = agentpeer_find(4000000, path, sizeof(path), url, sizeof(url), err, sizeof(err));
    CHECK(rc == -1 && err[0], "no such process: cannot tell (%s)", err);

    close(listener);
    close(plain);
    unlink(note);
    snprintf(sock, sizeof(sock), "%s/agent.sock", dir);
    unlink(sock);
    snprintf(sock, sizeof(sock), "%s/agent.sock", other);
    unlink(sock);
    rmdir(dir);
    rmdir(other);
    rmdir(base);
}

static const check_test tests[] = {
    TEST_ENTRY(agent_socket_names),
    TEST_ENTRY(note_urls),
    TEST_ENTRY(find_the_server),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
