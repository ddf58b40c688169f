/* symfile.c -- an assembly's PDB found, read and checked; source files read
 * (see symfile.h). */
#include "symfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inroot.h"
#include "pefile.h"

#define SYMFILE_MAX_CODEVIEW 4096u

static const char *symfile_symbols_dir;

void symfile_set_dir(const char *dir) { symfile_symbols_dir = dir; }

const char *symfile_dir(void) { return symfile_symbols_dir; }

/* A regular file as process pid sees it (pid 0: as the server does); -1 when
 * it cannot be opened or is no regular file. *size set. The path is opened
 * with O_PATH first and only a regular file is opened for reading (through
 * /proc/self/fd, the same inode), so that a path a container points at a
 * device or a FIFO never opens it. */
static int symfile_open(pid_t pid, const char *path, size_t *size)
{
    char again[64];
    struct stat st;
    int fd, file;

    if (path[0] != '/')
        return -1;
    if (pid > 0) {
        fd = inroot_open(pid, path, O_PATH);
    } else {
        fd = open(path, O_PATH | O_CLOEXEC);
    }
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0) {
        close(fd);
        return -1;
    }
    snprintf(again, sizeof(again), "/proc/self/fd/%d", fd);
    file = open(again, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    close(fd);
    if (file < 0)
        return -1;
    *size = (size_t)st.st_size;
    return file;
}

/* size bytes at offset into buf; 0, or -1 (error or the file shorter). */
static int symfile_read_at(int fd, uint64_t offset, void *buf, size_t size)
{
    size_t done = 0;

    while (done < size) {
        ssize_t n = pread(fd, (char *)buf + done, size - done, (off_t)(offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        done += (size_t)n;
    }
    return 0;
}

/* A span of the file, malloc'd; NULL when it cannot be read. */
static uint8_t *symfile_read_span(int fd, size_t file_size, uint32_t offset, uint32_t size)
{
    uint8_t *buf;

    if (offset > file_size || size > file_size - offset || !(buf = malloc(size ? size : 1)))
        return NULL;
    if (symfile_read_at(fd, offset, buf, size) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* What the assembly's debug directory says. */
typedef struct symfile_assembly {
    pefile_debug debug;
    pefile_codeview cv;
    int have_cv;
} symfile_assembly;

static int symfile_read_assembly(int fd, size_t size, symfile_assembly *a, char *err,
                                 size_t err_size)
{
    uint8_t head[PEFILE_HEAD_BYTES], *dir, *cv;
    size_t head_size = size < sizeof(head) ? size : sizeof(head);
    pefile_span span;
    int rc;

    memset(a, 0, sizeof(*a));
    if (symfile_read_at(fd, 0, head, head_size) != 0) {
        snprintf(err, err_size, "the assembly could not be read");
        return -1;
    }
    if (pefile_debug_directory(head, head_size, &span, err, err_size) != 0)
        return -1;
    if (!span.size)
        return 0;
    if (span.size > PEFILE_MAX_ENTRIES * 28u)
        span.size = PEFILE_MAX_ENTRIES * 28u;
    if (!(dir = symfile_read_span(fd, size, span.offset, span.size))) {
        snprintf(err, err_size, "the assembly's debug directory could not be read");
        return -1;
    }
    rc = pefile_debug_entries(dir, span.size, &a->debug, err, err_size);
    free(dir);
    if (rc != 0 || !a->debug.have_codeview)
        return rc;
    span = a->debug.codeview;
    if (span.size > SYMFILE_MAX_CODEVIEW)
        span.size = SYMFILE_MAX_CODEVIEW;
    if (!(cv = symfile_read_span(fd, size, span.offset, span.size)))
        return 0; /* unreadable: as if it had none */
    a->have_cv = pefile_codeview_parse(cv, span.size, &a->cv, NULL, 0) == 0;
    free(cv);
    return 0;
}

static void symfile_hex(const uint8_t *b, size_t n, char *out)
{
    size_t i;
    for (i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/* Opens the PDB in bytes (taken over) and checks it against the assembly:
 * 0 (s filled), or -1 with why in err (bytes freed). */
static int symfile_accept(symfile *s, const symfile_assembly *a, uint8_t *bytes, size_t size,
                          const char *where, int embedded, char *err, size_t err_size)
{
    char why[256], have[2 * PDB_ID_SIZE + 1], want[2 * PDB_ID_SIZE + 1];
    uint8_t id[PDB_ID_SIZE];

    if (pdb_open(&s->pdb, bytes, size, why, sizeof(why)) != 0) {
        snprintf(err, err_size, "%s: %s", where, why);
        free(bytes);
        return -1;
    }
    if (a->have_cv) {
        memcpy(id, a->cv.guid, 16);
        memcpy(id + 16, &a->debug.codeview_stamp, 4); /* little-endian, as in the PDB */
        if (memcmp(id, s->pdb.id, PDB_ID_SIZE) != 0) {
            symfile_hex(s->pdb.id, PDB_ID_SIZE, have);
            symfile_hex(id, PDB_ID_SIZE, want);
            snprintf(err, err_size,
                     "%s does not match the assembly (its id %s, the assembly's %s): refused",
                     where, have, want);
            free(bytes);
            return -1;
        }
    } else if (!embedded) {
        snprintf(err, err_size,
                 "%s cannot be checked: the assembly has no CodeView debug entry: refused", where);
        free(bytes);
        return -1;
    }
    s->bytes = bytes;
    s->size = size;
    s->embedded = embedded;
    snprintf(s->where, sizeof(s->where), "%s", where);
    return 0;
}

/* The PDB at path (as pid sees it), if there is one: 0 loaded, 1 none there,
 * -1 refused (err says why). */
static int symfile_try(symfile *s, const symfile_assembly *a, pid_t pid, const char *path,
                       char *err, size_t err_size)
{
    size_t size;
    uint8_t *bytes;
    int fd = symfile_open(pid, path, &size);

    if (fd < 0)
        return 1;
    if (size > SYMFILE_MAX_PDB) {
        close(fd);
        snprintf(err, err_size, "%s is larger than %u bytes: refused", path, SYMFILE_MAX_PDB);
        return -1;
    }
    bytes = symfile_read_span(fd, size, 0, (uint32_t)size);
    close(fd);
    if (!bytes) {
        snprintf(err, err_size, "%s could not be read", path);
        return -1;
    }
    return symfile_accept(s, a, bytes, size, path, 0, err, err_size);
}

static int symfile_embedded(symfile *s, const symfile_assembly *a, int fd, size_t size,
                            const char *assembly, char *err, size_t err_size)
{
    pefile_span span = a->debug.embedded;
    uint8_t *data, *pdb_bytes;
    char why[256];
    long length;

    if (!(data = symfile_read_span(fd, size, span.offset, span.size))) {
        snprintf(err, err_size, "the PDB embedded in %s could not be read", assembly);
        return -1;
    }
    if ((length = pefile_embedded_size(data, span.size, why, sizeof(why))) < 0 ||
        !(pdb_bytes = malloc((size_t)length))) {
        snprintf(err, err_size, "the PDB embedded in %s: %s", assembly,
                 length < 0 ? why : "out of memory");
        free(data);
        return -1;
    }
    if (pefile_embedded_inflate(data, span.size, pdb_bytes, (size_t)length, why, sizeof(why)) !=
        0) {
        snprintf(err, err_size, "the PDB embedded in %s: %s", assembly, why);
        free(data);
        free(pdb_bytes);
        return -1;
    }
    free(data);
    return symfile_accept(s, a, pdb_bytes, (size_t)length, assembly, 1, err, err_size);
}

/* The file name of a path written with / or \ (a PDB path from Windows). */
static const char *symfile_base(const char *path)
{
    const char *slash = strrchr(path, '/'), *back = strrchr(path, '\\');
    if (back && (!slash || back > slash))
        slash = back;
    return slash ? slash + 1 : path;
}

int symfile_load(symfile *out, pid_t pid, const char *assembly, char *err, size_t err_size)
{
    char path[1100], refused[1024] = "";
    symfile_assembly a;
    size_t size;
    const char *dot, *base = symfile_base(assembly);
    int fd, rc = 1;

    memset(out, 0, sizeof(*out));
    if ((fd = symfile_open(pid, assembly, &size)) < 0) {
        snprintf(err, err_size, "the assembly %s could not be opened", assembly);
        return -1;
    }
    if (symfile_read_assembly(fd, size, &a, err, err_size) != 0) {
        close(fd);
        return -1;
    }
    dot = strrchr(base, '.');
    if (symfile_symbols_dir) {
        if (a.have_cv && a.cv.path[0]) {
            snprintf(path, sizeof(path), "%s/%s", symfile_symbols_dir, symfile_base(a.cv.path));
            rc = symfile_try(out, &a, 0, path, refused, sizeof(refused));
        }
        if (rc != 0) {
            snprintf(path, sizeof(path), "%s/%.*s.pdb", symfile_symbols_dir,
                     (int)(dot ? dot - base : (long)strlen(base)), base);
            rc = symfile_try(out, &a, 0, path, rc < 0 ? NULL : refused,
                             rc < 0 ? 0 : sizeof(refused));
        }
    }
    if (rc != 0) {
        size_t keep = (size_t)(base - assembly);
        snprintf(path, sizeof(path), "%.*s%.*s.pdb", (int)keep, assembly,
                 (int)(dot ? dot - base : (long)strlen(base)), base);
        rc = symfile_try(out, &a, pid, path, refused[0] ? NULL : refused,
                         refused[0] ? 0 : sizeof(refused));
    }
    if (rc != 0 && a.debug.have_embedded)
        rc = symfile_embedded(out, &a, fd, size, assembly, refused[0] ? NULL : refused,
                              refused[0] ? 0 : sizeof(refused));
    close(fd);
    if (rc == 0)
        return 0;
    if (refused[0])
        snprintf(err, err_size, "%s", refused);
    else
        snprintf(err, err_size, "no PDB for %s: none beside it%s%s, none embedded in it", assembly,
                 symfile_symbols_dir ? " nor in " : "",
                 symfile_symbols_dir ? symfile_symbols_dir : "");
    return -1;
}

void symfile_free(symfile *s)
{
    free(s->bytes);
    memset(s, 0, sizeof(*s));
}

char *symfile_read_text(pid_t pid, const char *path, size_t *length)
{
    size_t size;
    char *text;
    int fd = symfile_open(pid, path, &size);

    if (fd < 0)
        return NULL;
    if (size > SYMFILE_MAX_TEXT || !(text = malloc(size + 1))) {
        close(fd);
        return NULL;
    }
    if (symfile_read_at(fd, 0, text, size) != 0) {
        close(fd);
        free(text);
        return NULL;
    }
    close(fd);
    text[size] = 0;
    *length = size;
    return text;
}

void *symfile_read_file(pid_t pid, const char *path, size_t max, size_t *size)
{
    void *data = NULL;
    int fd = symfile_open(pid, path, size);

    if (fd < 0)
        return NULL;
    /* read, not mapped: a process that cuts the file short while it is read
     * makes the read fail, where a mapping would bring SIGBUS on the server */
    if (*size && *size <= max && (data = malloc(*size)) &&
        symfile_read_at(fd, 0, data, *size) != 0) {
        free(data);
        data = NULL;
    }
    close(fd);
    return data;
}
