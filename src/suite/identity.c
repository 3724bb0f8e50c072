/*
 * identity.c - what an input file or directory is, as a run records it
 * (runs.inputs_json) and --resume checks it (include/arbiter/suite.h).
 *
 * A file: its size and the SHA-256 of its bytes, streamed (a 100 MB JSONL
 * file is read once, 64 KB at a time).  A directory: the number of entries,
 * the bytes of its files, and one SHA-256 over its listing and contents as the
 * output reader sees them: the non-hidden entries, level by level in name
 * order, each as its relative name, a NUL and a record - "f SIZE SHA256" for a
 * regular file or a link to one, "d" for a sub-directory (then its own
 * entries), "l" for a link to a directory, "n" for a dangling link, "s" for a
 * FIFO, socket or device - and a newline.  So adding, removing or renaming an
 * entry, or changing a byte of a file, changes the digest; timestamps and
 * permissions do not.  Nothing that is not a regular file is opened.  Below
 * the reader's depth limit a sub-directory is listed as "D" and not entered
 * (the reader refuses such a tree anyway).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/evp.h>

#include "arbiter/file.h"
#include "suite_int.h"

#define MAX_DIR_DEPTH 32

struct hasher {
    EVP_MD *sha256;
    EVP_MD_CTX *outer; /* the directory's digest */
    EVP_MD_CTX *inner; /* one file's */
    struct arb_input_id *id;
    const char *what;
    struct arb_err *err;
};

static enum arb_status ssl_failed(struct hasher *h)
{
    return arb_err_set(h->err, ARB_EINTERNAL, "sha-256 failed in openssl");
}

/* SHA-256 and size of the regular file path into hex, *size. */
static enum arb_status hash_file(struct hasher *h, const char *path, char hex[65],
                                 uint64_t *size)
{
    unsigned char md[EVP_MAX_MD_SIZE], chunk[65536];
    unsigned int n = 0;
    size_t got;
    FILE *f;
    enum arb_status st = arb_file_open_regular(path, h->what, &f, h->err);

    if (st)
        return st;
    *size = 0;
    if (!EVP_DigestInit_ex(h->inner, h->sha256, NULL))
        st = ssl_failed(h);
    while (!st && (got = fread(chunk, 1, sizeof(chunk), f)) > 0) {
        *size += got;
        if (!EVP_DigestUpdate(h->inner, chunk, got))
            st = ssl_failed(h);
    }
    if (!st && ferror(f))
        st = arb_err_set(h->err, ARB_EIO, "cannot read %s '%s': %s", h->what, path,
                         strerror(errno));
    fclose(f);
    if (!st && (!EVP_DigestFinal_ex(h->inner, md, &n) || n != 32))
        st = ssl_failed(h);
    if (!st)
        arb_hex(md, n, hex);
    return st;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* The non-hidden names in dir, sorted, into *out (*n of them). */
static enum arb_status list_names(struct hasher *h, const char *dir, char ***out, size_t *n)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **v = NULL;
    size_t cap = 0;

    *out = NULL;
    *n = 0;
    if (!d)
        return arb_err_set(h->err, ARB_EIO, "cannot open directory '%s': %s", dir,
                           strerror(errno));
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (*n == cap) {
            char **nv = realloc(v, (cap ? cap * 2 : 32) * sizeof(*v));

            if (!nv)
                break;
            v = nv;
            cap = cap ? cap * 2 : 32;
        }
        v[*n] = strdup(e->d_name);
        if (!v[*n])
            break;
        (*n)++;
    }
    closedir(d);
    if (e) {
        free_names(v, *n);
        *n = 0;
        return arb_err_set(h->err, ARB_ENOMEM, "out of memory");
    }
    if (*n)
        qsort(v, *n, sizeof(*v), by_name);
    *out = v;
    return ARB_OK;
}

static enum arb_status add_record(struct hasher *h, const char *rel, const char *record)
{
    if (!EVP_DigestUpdate(h->outer, rel, strlen(rel) + 1) ||
        !EVP_DigestUpdate(h->outer, record, strlen(record)) ||
        !EVP_DigestUpdate(h->outer, "\n", 1))
        return ssl_failed(h);
    h->id->entries++;
    return ARB_OK;
}

static enum arb_status hash_dir(struct hasher *h, const char *dir, const char *rel, int depth);

/* One entry: full is its path, rel its name relative to the root. */
static enum arb_status hash_entry(struct hasher *h, const char *full, const char *rel, int depth)
{
    struct stat lsb, sb;
    char record[96], hex[65];
    uint64_t size = 0;
    enum arb_status st;

    if (lstat(full, &lsb) != 0)
        return arb_err_set(h->err, ARB_EIO, "cannot stat '%s': %s", full, strerror(errno));
    if (S_ISDIR(lsb.st_mode)) {
        st = add_record(h, rel, depth < MAX_DIR_DEPTH ? "d" : "D");
        return st || depth >= MAX_DIR_DEPTH ? st : hash_dir(h, full, rel, depth + 1);
    }
    if (stat(full, &sb) != 0)
        return add_record(h, rel, "n");
    if (S_ISDIR(sb.st_mode))
        return add_record(h, rel, "l");
    if (!S_ISREG(sb.st_mode))
        return add_record(h, rel, "s");
    st = hash_file(h, full, hex, &size);
    if (st)
        return st;
    h->id->size += size;
    snprintf(record, sizeof(record), "f %" PRIu64 " %s", size, hex);
    return add_record(h, rel, record);
}

static enum arb_status hash_dir(struct hasher *h, const char *dir, const char *rel, int depth)
{
    char **names = NULL;
    size_t n = 0, i;
    enum arb_status st = list_names(h, dir, &names, &n);

    for (i = 0; !st && i < n; i++) {
        char *full = path_join(dir, names[i]);
        char *sub = rel[0] ? path_join(rel, names[i]) : strdup(names[i]);

        st = full && sub ? hash_entry(h, full, sub, depth)
                         : arb_err_set(h->err, ARB_ENOMEM, "out of memory");
        free(full);
        free(sub);
    }
    free_names(names, n);
    return st;
}

enum arb_status arb_input_identify(const char *path, const char *what, struct arb_input_id *id,
                                   struct arb_err *err)
{
    struct hasher h = {NULL, NULL, NULL, id, what, err};
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    struct stat sb;
    enum arb_status st = ARB_OK;

    memset(id, 0, sizeof(*id));
    if (stat(path, &sb) != 0)
        return arb_err_set(err, ARB_EIO, "cannot open %s '%s': %s", what, path, strerror(errno));
    if (!S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode))
        return arb_err_set(err, ARB_EIO, "%s '%s' is not a regular file or a directory (%s)", what,
                           path, arb_file_type_name((unsigned)sb.st_mode));
    h.sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
    h.outer = EVP_MD_CTX_new();
    h.inner = EVP_MD_CTX_new();
    if (!h.sha256 || !h.outer || !h.inner)
        st = arb_err_set(err, ARB_EINTERNAL, "cannot set up SHA-256 in openssl");
    id->is_dir = S_ISDIR(sb.st_mode);
    if (!st && !id->is_dir)
        st = hash_file(&h, path, id->sha256, &id->size);
    if (!st && id->is_dir) {
        if (!EVP_DigestInit_ex(h.outer, h.sha256, NULL))
            st = ssl_failed(&h);
        if (!st)
            st = hash_dir(&h, path, "", 1);
        if (!st && (!EVP_DigestFinal_ex(h.outer, md, &n) || n != 32))
            st = ssl_failed(&h);
        if (!st)
            arb_hex(md, n, id->sha256);
    }
    EVP_MD_CTX_free(h.inner);
    EVP_MD_CTX_free(h.outer);
    EVP_MD_free(h.sha256);
    return st;
}
