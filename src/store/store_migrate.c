/*
 * store_migrate.c - the schema of a database: what the file is (an Arbiter database, an empty
 * file, anything else), and the migrations a writer applies to bring it to the latest
 * (db/README.md: one transaction each; an empty file gets db/schema-fresh.sql, the schema
 * every migration leaves, in one).  The migrations are db/ embedded by gen_schema_sql.sh.
 */
#include <stdlib.h>
#include <string.h>

#include "schema_sql.h"
#include "store_int.h"

#define APPLICATION_ID 0x41524249 /* "ARBI" in the database header */

/* The migrations, in order; a database's user_version is the last one applied. */
struct migration {
    int version;
    const char *const *parts; /* SQL text, split into literals; NULL-terminated */
    const char *stamp;        /* fixed text: sets application_id and user_version */
};

static const struct migration migrations[] = {
    {1, store_schema_sql_parts, "PRAGMA application_id = 1095909961; PRAGMA user_version = 1;"},
    {2, store_migration2_sql_parts, "PRAGMA user_version = 2;"},
    {3, store_migration3_sql_parts, "PRAGMA user_version = 3;"},
    {4, store_migration4_sql_parts, "PRAGMA user_version = 4;"},
    {5, store_migration5_sql_parts, "PRAGMA user_version = 5;"},
    {6, store_migration6_sql_parts, "PRAGMA user_version = 6;"},
    {7, store_migration7_sql_parts, "PRAGMA user_version = 7;"},
    {8, store_migration8_sql_parts, "PRAGMA user_version = 8;"},
    {9, store_migration9_sql_parts, "PRAGMA user_version = 9;"},
    {10, store_migration10_sql_parts, "PRAGMA user_version = 10;"},
    {11, store_migration11_sql_parts, "PRAGMA user_version = 11;"},
};

#define N_MIGRATIONS  (sizeof(migrations) / sizeof(migrations[0]))
#define LATEST_SCHEMA (migrations[N_MIGRATIONS - 1].version)

/* Join a migration's literals into one string (caller frees). */
static char *join_parts(const char *const *parts)
{
    size_t n = 0, at = 0;
    char *s;

    for (size_t i = 0; parts[i]; i++)
        n += strlen(parts[i]);
    s = malloc(n + 1);
    if (!s)
        return NULL;
    for (size_t i = 0; parts[i]; i++) {
        size_t k = strlen(parts[i]);

        memcpy(s + at, parts[i], k);
        at += k;
    }
    s[at] = '\0';
    return s;
}

/* Apply one migration in its own transaction, unless another process got there first; with
 * fresh, m is the whole schema in one step, applied only to a file still empty. */
static enum arb_status apply_migration(struct arb_store *st, const struct migration *m, int fresh,
                                       struct arb_err *err)
{
    enum arb_status ret = store_begin_immediate(st, err);
    int64_t version = 0;
    char *text;
    int rc;

    if (ret != ARB_OK)
        return ret;
    rc = store_query_int(st, "PRAGMA user_version", &version);
    if (rc != SQLITE_OK) {
        ret = store_fail(st, rc, err, "read the schema version");
    } else if (fresh ? version == 0 : version < m->version) {
        text = join_parts(m->parts);
        if (!text) {
            ret = arb_err_set(err, ARB_ENOMEM, "out of memory migrating '%s'", st->path);
        } else {
            rc = sqlite3_exec(st->db, text, NULL, NULL, NULL);
            if (rc == SQLITE_OK)
                rc = sqlite3_exec(st->db, m->stamp, NULL, NULL, NULL);
            if (rc != SQLITE_OK)
                ret = store_fail(st, rc, err, "apply schema migration %d", m->version);
            free(text);
        }
    }
    if (ret == ARB_OK) {
        rc = sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
        if (rc != SQLITE_OK)
            ret = store_fail(st, rc, err, "commit schema migration %d", m->version);
    }
    if (ret != ARB_OK && !sqlite3_get_autocommit(st->db))
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    return ret;
}

/*
 * Decide what the file is: an Arbiter database (migrate it when older), an
 * empty file (create the schema), or anything else (refuse).
 */
enum arb_status store_check_and_migrate(struct arb_store *st, struct arb_err *err)
{
    int64_t app = 0, version = 0, tables = 0;
    int rc = store_query_int(st, "PRAGMA application_id", &app);

    if (rc == SQLITE_OK)
        rc = store_query_int(st, "PRAGMA user_version", &version);
    if (rc == SQLITE_OK)
        rc = store_query_int(st, "SELECT count(*) FROM sqlite_master", &tables);
    if (rc != SQLITE_OK)
        return store_open_fail(st, rc, err, "read the schema version");
    if ((version > 0 || app != 0) && app != APPLICATION_ID)
        return arb_err_set(err, ARB_EDB,
                           "'%s' is not an Arbiter database (application_id %lld, user_version "
                           "%lld)",
                           st->path, (long long)app, (long long)version);
    if (version == 0 && tables > 0)
        return arb_err_set(err, ARB_EDB,
                           "'%s' is not an Arbiter database (it has tables but no schema version)",
                           st->path);
    if (version > LATEST_SCHEMA)
        return arb_err_set(err, ARB_ESCHEMA,
                           "'%s' has schema version %lld, newer than this build of Arbiter knows "
                           "(%d); use a newer Arbiter",
                           st->path, (long long)version, LATEST_SCHEMA);
    if (version == LATEST_SCHEMA)
        return ARB_OK;
    if (st->flags & ARB_STORE_READONLY) {
        if (version == 0)
            return arb_err_set(err, ARB_EDB, "'%s' is not an Arbiter database (it is empty)",
                               st->path);
        return arb_err_set(err, ARB_ESCHEMA,
                           "'%s' has schema version %lld and needs migrating to %d: run "
                           "'arbiter migrate --db %s'",
                           st->path, (long long)version, LATEST_SCHEMA, st->path);
    }
    if (version == 0 && store_fresh_schema_version == LATEST_SCHEMA) {
        /* The schema the migrations leave, in one step (each ALTERing migration made SQLite
         * parse the whole schema again); generated from them, used when it ends with the last. */
        const struct migration fresh = {LATEST_SCHEMA, store_fresh_schema_sql_parts, ""};
        enum arb_status ret = apply_migration(st, &fresh, 1, err);

        if (ret != ARB_OK)
            return ret;
        rc = store_query_int(st, "PRAGMA user_version", &version);
        if (rc != SQLITE_OK)
            return store_fail(st, rc, err, "read the schema version");
    }
    for (size_t i = 0; i < N_MIGRATIONS; i++) {
        if (migrations[i].version <= version)
            continue;
        enum arb_status ret = apply_migration(st, &migrations[i], 0, err);
        if (ret != ARB_OK)
            return ret;
    }
    return ARB_OK;
}

const char *const *store_migration_sql(int version)
{
    for (size_t i = 0; i < N_MIGRATIONS; i++)
        if (migrations[i].version == version)
            return migrations[i].parts;
    return NULL;
}

int arb_store_latest_schema(void)
{
    return LATEST_SCHEMA;
}
