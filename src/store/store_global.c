/*
 * store_global.c - SQLite's process-wide configuration (arb_store_global_init), so that only
 * src/store/ includes sqlite3.h: the command line asks for it without knowing SQLite.
 */
#include <sqlite3.h>

#include "arbiter/store.h"

enum arb_status arb_store_global_init(void)
{
    /*
     * No memory statistics.  Counting them takes a global mutex on every allocation, which a
     * run's two connections (its writer thread and its reader) contended for, a fifth of a
     * run's time.  Arbiter never reads them (sqlite3_memory_used and the like).  SQLite
     * refuses (SQLITE_MISUSE) once it is initialised: then this came too late.
     */
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) == SQLITE_OK ? ARB_OK : ARB_EINTERNAL;
}
