/* mdread.h -- reads type and method names straight from a module's ECMA-335
 * metadata as it lies in memory, without asking the runtime.
 *
 * Why: asking the runtime for a module's IMetaDataImport (GetModuleMetaData)
 * makes it convert that module's metadata to its read-write form for good, and
 * from then on every metadata read of the JIT and the type loader in that
 * module takes a reader lock. Measured on a JIT storm, one such call per
 * module made the app's JIT about 7-10% slower (docs/BENCHMARKS.md). The
 * metadata of a module loaded from a file is a read-only blob in the
 * process; this reader answers the five questions the agent's naming needs
 * (names_resolve.c) from it, and the runtime's importer stays for the modules
 * this reader declines (dynamic, collectible, unusual layouts).
 *
 * Pure and bounded: no allocation, no runtime calls, every offset checked
 * against the sizes the headers give (and against `size` when the caller
 * knows it), so a malformed image gives -1, never a read outside it. The
 * strings returned point into the image (NUL-terminated there; not checked
 * for UTF-8: callers sanitise). */
#ifndef JITSCOPE_MDREAD_H
#define JITSCOPE_MDREAD_H

#include <stddef.h>
#include <stdint.h>

#define MDREAD_TOKEN_TYPEREF 0x01000000u
#define MDREAD_TOKEN_TYPEDEF 0x02000000u
#define MDREAD_TOKEN_METHODDEF 0x06000000u
#define MDREAD_TOKEN_TYPESPEC 0x1b000000u
#define MDREAD_TOKEN_MEMBERREF 0x0a000000u
#define MDREAD_TOKEN_METHODSPEC 0x2b000000u

typedef struct mdread_table {
    const uint8_t *rows;
    uint32_t count, row_size;
} mdread_table;

typedef struct mdread {
    const uint8_t *strings, *blobs;
    uint32_t strings_size, blobs_size;
    mdread_table type_ref, type_def, method_def, type_spec, nested_class, member_ref, method_spec;
    uint8_t string_width, blob_width;   /* heap index widths: 2 or 4 */
    uint8_t scope_width, extends_width; /* ResolutionScope, TypeDefOrRef coded indexes */
    uint8_t field_width, method_width, param_width, type_def_width; /* simple indexes */
    uint8_t parent_width, method_ref_width; /* MemberRefParent, MethodDefOrRef coded indexes */
    uint8_t nested_sorted;
} mdread;

/* From the start of a PE image in memory: `flat` when the image lies as in
 * its file (file offsets), else mapped (RVAs); `size` the readable bytes from
 * `image`, or 0 when unknown (then the headers' own sizes bound every read,
 * and the first 4 KiB must be readable). 0 on success. Declines (-1) metadata
 * with edit-and-continue tables or indirection tables ("#-" streams). */
int mdread_open_image(mdread *r, const uint8_t *image, size_t size, int flat);

/* From the metadata root ("BSJB") of `size` bytes. 0 on success. */
int mdread_open_metadata(mdread *r, const uint8_t *root, size_t size);

typedef struct mdread_method {
    const char *name;
    uint32_t owner; /* TypeDef token of the type that declares it */
    uint32_t flags;
    const uint8_t *sig;
    uint32_t sig_len;
} mdread_method;

/* 1 when the token's row is in these tables. A module changed at run time
 * (hot reload: metadata deltas) has rows the image does not: ask the runtime. */
int mdread_knows(const mdread *r, uint32_t token);

/* Each returns 0, or -1 for a token that is not in the tables. */
int mdread_method_props(const mdread *r, uint32_t token, mdread_method *out);
int mdread_type_def(const mdread *r, uint32_t token, const char **ns, const char **name,
                    uint32_t *flags);
int mdread_enclosing(const mdread *r, uint32_t type_def, uint32_t *enclosing);
int mdread_type_ref(const mdread *r, uint32_t token, const char **ns, const char **name);
int mdread_type_spec(const mdread *r, uint32_t token, const uint8_t **sig, uint32_t *len);

/* A MemberRef (a method or field of another module or of an instantiated
 * type): its parent (a TypeDef, TypeRef, ModuleRef 0x1a......, MethodDef or
 * TypeSpec token), name and signature. */
typedef struct mdread_member {
    uint32_t parent;
    const char *name;
    const uint8_t *sig;
    uint32_t sig_len;
} mdread_member;
int mdread_member_ref(const mdread *r, uint32_t token, mdread_member *out);

/* A MethodSpec (a generic method's instantiation): its method (a MethodDef or
 * MemberRef token) and its instantiation blob (0x0A, count, types). */
int mdread_method_spec(const mdread *r, uint32_t token, uint32_t *method, const uint8_t **inst,
                       uint32_t *len);

#endif
