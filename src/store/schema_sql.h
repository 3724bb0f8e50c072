/*
 * schema_sql.h - db/schema.sql, embedded (src/store/schema_sql.c).
 *
 * The file is split into literals of whole lines, each under the 4095 bytes
 * C11 promises; joined in order they are db/schema.sql byte for byte.  The
 * array ends with NULL.  Migration 1 applies their concatenation.
 */
#ifndef ARBITER_SCHEMA_SQL_H
#define ARBITER_SCHEMA_SQL_H

extern const char *const store_schema_sql_parts[];

/* db/migrations/002-judge-calibration.sql, the same way (src/store/migration2_sql.c). */
extern const char *const store_migration2_sql_parts[];

/* db/migrations/003-trials.sql (src/store/migration3_sql.c). */
extern const char *const store_migration3_sql_parts[];

/* db/migrations/004-fast-inserts.sql (src/store/migration4_sql.c). */
extern const char *const store_migration4_sql_parts[];

/* db/migrations/005-scope-cached-tokens.sql (src/store/migration5_sql.c). */
extern const char *const store_migration5_sql_parts[];

/* db/migrations/006-provider-replies.sql (src/store/migration6_sql.c). */
extern const char *const store_migration6_sql_parts[];
/* db/migrations/007-procedure-identity.sql (src/store/migration7_sql.c). */
extern const char *const store_migration7_sql_parts[];

/* db/migrations/008-labels.sql (src/store/migration8_sql.c). */
extern const char *const store_migration8_sql_parts[];

/* db/migrations/009-judge-batches.sql (src/store/migration9_sql.c). */
extern const char *const store_migration9_sql_parts[];

/* db/migrations/010-check-texts.sql (src/store/migration10_sql.c). */
extern const char *const store_migration10_sql_parts[];

/* db/migrations/011-verdict-texts.sql (src/store/migration11_sql.c). */
extern const char *const store_migration11_sql_parts[];

/* db/schema-fresh.sql (src/store/schema_fresh_sql.c): the schema every migration above leaves,
 * made in one step, and the migration it ends with (both generated from the files above). */
extern const char *const store_fresh_schema_sql_parts[];
extern const int store_fresh_schema_version;

/* The literals of migration version (1 is db/schema.sql), as migrations[] applies them one by
 * one (store.c); NULL for a version it does not have.  For the tests. */
const char *const *store_migration_sql(int version);

#endif
