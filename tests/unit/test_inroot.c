/* test_inroot.c -- a path opened from a process's root without leaving it
 * (server/inroot.c), both ways: openat2 RESOLVE_IN_ROOT and the component
 * walk taken where the kernel has no openat2 (before Linux 5.6, under
 * valgrind). On a tree in a temporary directory, opened from this process's
 * own root: a file and a directory open either way; the walk follows no link
 * (a link to a directory on the way fails, a link at the end is opened as the
 * link itself, which symfile.c's regular-file check turns away), refuses
 * "..", takes "//" and "." in its stride; a relative path is refused.
 * Build: make build/tests/test_inroot && build/tests/test_inroot
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "inroot.h"

static char tree[64];

/* tree/a/b/file.txt ("hello"), tree/dirlink -> tree/a (absolute),
 * tree/a/filelink -> b/file.txt. */
static int make_tree(void)
{
    char path[256];
    FILE *f;

    snprintf(tree, sizeof(tree), "/tmp/inroot-XXXXXX");
    if (!mkdtemp(tree))
        return -1;
    snprintf(path, sizeof(path), "%s/a", tree);
    if (mkdir(path, 0700) != 0)
        return -1;
    snprintf(path, sizeof(path), "%s/a/b", tree);
    if (mkdir(path, 0700) != 0)
        return -1;
    snprintf(path, sizeof(path), "%s/a/b/file.txt", tree);
    if (!(f = fopen(path, "w")))
        return -1;
    fputs("hello", f);
    fclose(f);
    snprintf(path, sizeof(path), "%s/a", tree);
    {
        char link[256];
        snprintf(link, sizeof(link), "%s/dirlink", tree);
        if (symlink(path, link) != 0)
            return -1;
        snprintf(link, sizeof(link), "%s/a/filelink", tree);
        if (symlink("b/file.txt", link) != 0)
            return -1;
    }
    return 0;
}

/* What make_tree made, deepest first. */
static void remove_tree(void)
{
    static const char *const made[] = {"a/b/file.txt", "a/filelink", "dirlink", "a/b", "a", ""};
    char path[256];
    size_t i;

    for (i = 0; i < sizeof(made) / sizeof(made[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", tree, made[i]);
        if (remove(path) != 0)
            fprintf(stderr, "could not remove %s\n", path);
    }
}

/* What fd reads (at most size - 1 bytes), closed. */
static const char *read_all(int fd, char *buf, size_t size)
{
    ssize_t n = fd >= 0 ? read(fd, buf, size - 1) : -1;
    if (fd >= 0)
        close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return buf;
}

static int open_in(const char *fmt, int flags)
{
    char path[256];
    snprintf(path, sizeof(path), fmt, tree);
    return inroot_open(getpid(), path, flags);
}

TEST(both_ways_open_a_file_and_a_directory)
{
    char buf[32];
    int walk, fd;

    if (!CHECK(make_tree() == 0, "a tree in %s", tree))
        return;
    for (walk = 0; walk <= 1; walk++) {
        inroot_force_walk(walk);
        CHECK(!strcmp(read_all(open_in("%s/a/b/file.txt", O_RDONLY), buf, sizeof(buf)), "hello"),
              "%s: the file read (%s)", walk ? "walk" : "openat2", buf);
        CHECK(!strcmp(read_all(open_in("%s//a/./b/file.txt", O_RDONLY), buf, sizeof(buf)), "hello"),
              "%s: \"//\" and \".\" in the path (%s)", walk ? "walk" : "openat2", buf);
        fd = open_in("%s/a/b/", O_RDONLY | O_DIRECTORY);
        CHECK(fd >= 0, "%s: a directory, with its trailing slash", walk ? "walk" : "openat2");
        if (fd >= 0)
            close(fd);
        errno = 0;
        CHECK(inroot_open(getpid(), "tmp/x", O_RDONLY) < 0 && errno == EINVAL,
              "%s: a relative path refused", walk ? "walk" : "openat2");
    }
    inroot_force_walk(0);
    remove_tree();
}

TEST(the_walk_follows_no_link_and_no_dotdot)
{
    char buf[32];
    struct stat st;
    int fd;

    if (!CHECK(make_tree() == 0, "a tree in %s", tree))
        return;
    /* the same paths openat2 follows, its links inside the root */
    CHECK(!strcmp(read_all(open_in("%s/dirlink/b/file.txt", O_RDONLY), buf, sizeof(buf)), "hello"),
          "openat2 follows a link that stays in the root (%s)", buf);
    inroot_force_walk(1);
    errno = 0;
    fd = open_in("%s/dirlink/b/file.txt", O_RDONLY);
    CHECK(fd < 0 && (errno == ELOOP || errno == ENOTDIR), "walk: no link on the way (%d, %s)", fd,
          strerror(errno));
    if (fd >= 0)
        close(fd);
    fd = open_in("%s/a/filelink", O_RDONLY);
    CHECK(fd < 0 && errno == ELOOP, "walk: a link at the end is not opened for reading (%d)", fd);
    if (fd >= 0)
        close(fd);
    fd = open_in("%s/a/filelink", O_PATH);
    CHECK(fd >= 0 && fstat(fd, &st) == 0 && S_ISLNK(st.st_mode),
          "walk: O_PATH gives the link itself, no regular file");
    if (fd >= 0)
        close(fd);
    errno = 0;
    fd = open_in("%s/a/../a/b/file.txt", O_RDONLY);
    CHECK(fd < 0 && errno == EXDEV, "walk: \"..\" refused (%d, %s)", fd, strerror(errno));
    if (fd >= 0)
        close(fd);
    inroot_force_walk(0);
    remove_tree();
}

static const check_test tests[] = {
    TEST_ENTRY(both_ways_open_a_file_and_a_directory),
    TEST_ENTRY(the_walk_follows_no_link_and_no_dotdot),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
