/* test_container.c -- unit tests for server/container.c and server/userns.c:
 * the container id in cgroup paths as Docker, containerd, CRI-O, Podman and
 * Kubernetes write them; uid maps and the uid inside; what /proc says of this
 * process (no container) and of a child in new mount, pid and UTS namespaces
 * (made here with unshare(2) when the test runs as root).
 *
 * Build: make build/tests/test_container && build/tests/test_container
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "check.h"
#include "container.h"
#include "userns.h"

#include <sched.h>
#include <stdlib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

TEST(cgroup_ids)
{
    static const struct {
        const char *text, *id;
    } cases[] = {
        {"0::/system.slice/docker-" ID ".scope\n", ID},
        {"12:pids:/docker/" ID "\n11:memory:/docker/" ID "\n", ID},
        {"0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234.slice/"
         "cri-containerd-" ID ".scope\n",
         ID},
        {"0::/kubepods/besteffort/pod5f2c1d9e-0000-4000-8000-000000000000/" ID "\n", ID},
        {"0::/machine.slice/libpod-" ID ".scope/container\n", ID}, /* podman, cgroup v2 */
        {"0::/system.slice/crio-" ID ".scope", ID},                /* no final newline */
        {"9:name=systemd:/\n8:pids:/user.slice\n0::/\n", ""},      /* not in a container */
        {"0::/docker/" ID "0\n", ""},                              /* 65 digits: not an id */
        {"0::/docker/X" ID "\n", ""},                              /* not after a '-' nor alone */
        {"0::/docker/0123456789ABCDEF\n", ""},                     /* short, capitals */
        {"garbage without colons\n", ""},
        {"", ""},
    };
    char out[CONTAINER_ID_LEN + 1];
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int found = container_id_from_cgroup(cases[i].text, strlen(cases[i].text), out);
        CHECK(found == (cases[i].id[0] != '\0') && strcmp(out, cases[i].id) == 0,
              "case %zu: \"%s\" -> \"%s\"", i, out, cases[i].id);
    }
    /* a line cut anywhere: never read past it */
    for (i = 0; i < strlen(cases[0].text); i++)
        container_id_from_cgroup(cases[0].text, i, out);
}

TEST(uid_maps)
{
    userns_extent map[4];
    size_t n = 0;
    uint32_t inside = 0;
    const char *text = "         0     100000      65536\n     65536          0          1\n";

    CHECK(userns_parse_map(text, strlen(text), map, 4, &n) == 0 && n == 2, "a map of two lines");
    CHECK(map[0].inside == 0 && map[0].outside == 100000 && map[0].count == 65536,
          "its first line");
    CHECK(userns_to_inside(map, n, 100000, &inside) == 0 && inside == 0, "100000 is root inside");
    CHECK(userns_to_inside(map, n, 165535, &inside) == 0 && inside == 65535, "the range's end");
    CHECK(userns_to_inside(map, n, 165536, &inside) == -1, "past it: not mapped");
    CHECK(userns_to_inside(map, n, 0, &inside) == 0 && inside == 65536, "the second line");
    CHECK(userns_parse_map("0 0 4294967295\n", 15, map, 4, &n) == 0 && n == 1, "the identity");
    CHECK(userns_parse_map("0 0\n", 4, map, 4, &n) == -1, "two numbers: refused");
    CHECK(userns_parse_map("0 0 0\n", 6, map, 4, &n) == -1, "a count of 0: refused");
    CHECK(userns_parse_map("4294967295 0 2\n", 15, map, 4, &n) == -1, "past 2^32: refused");
    CHECK(userns_parse_map("0 0 1 x\n", 8, map, 4, &n) == -1, "trailing text: refused");
    CHECK(userns_parse_map("0 0 1\n1 1 1\n2 2 1\n", 18, map, 2, &n) == -1, "more lines than room");
}

TEST(this_process)
{
    container_facts c;
    userns_facts u;
    char err[128];

    CHECK(container_probe(getpid(), &c) == 0 && !c.in_container, "the test is in no container");
    CHECK(userns_probe(getpid(), &u, err, sizeof(err)) == 0 && !u.other && u.ours &&
              u.uid == getuid() && u.uid_inside == getuid(),
          "its own user namespace, its own user (%s)", err);
    CHECK(container_probe(0x7ffffffe, &c) == -1, "no such process");
}

/* A child in new mount, pid and UTS namespaces, named "unit-ctr": what a
 * container engine makes (root only). */
TEST(a_child_in_namespaces)
{
    int ready[2], go[2];
    container_facts c;
    pid_t child;
    char b;

    if (geteuid() != 0) {
        CHECK(0, "unshare(2) of these namespaces needs root (as the container tests do)");
        return;
    }
    CHECK(pipe(ready) == 0 && pipe(go) == 0, "pipes");
    child = fork();
    if (child == 0) {
        pid_t inner;
        if (unshare(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWUTS) != 0 ||
            sethostname("unit-ctr", 8) != 0)
            _exit(1);
        inner = fork(); /* the first process of the new pid namespace */
        if (inner == 0) {
            ssize_t w = write(ready[1], "r", 1);
            ssize_t r = read(go[0], &b, 1);
            _exit(w == 1 && r >= 0 ? 0 : 1);
        }
        waitpid(inner, NULL, 0);
        _exit(0);
    }
    CHECK(read(ready[0], &b, 1) == 1, "the child is in its namespaces");
    {
        char path[64], text[64];
        pid_t grandchild = 0;
        FILE *f;
        snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)child, (int)child);
        if ((f = fopen(path, "r"))) {
            if (fgets(text, sizeof(text), f))
                grandchild = (pid_t)strtol(text, NULL, 10);
            fclose(f);
        }
        CHECK(grandchild > 0 && container_probe(grandchild, &c) == 0, "probed");
        CHECK(c.in_container && c.pid == 1, "in a container, its pid 1 there (%d)", (int)c.pid);
        CHECK(strcmp(c.hostname, "unit-ctr") == 0 && !c.hostname_from_file,
              "its UTS namespace's hostname (\"%s\")", c.hostname);
        CHECK(!c.user_namespace && c.uid == 0, "no user namespace of its own");
    }
    CHECK(write(go[1], "g", 1) == 1, "let it end");
    waitpid(child, NULL, 0);
    close(ready[0]), close(ready[1]), close(go[0]), close(go[1]);
}

static const check_test tests[] = {
    TEST_ENTRY(cgroup_ids),
    TEST_ENTRY(uid_maps),
    TEST_ENTRY(this_process),
    TEST_ENTRY(a_child_in_namespaces),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
