/*
 * store_int.h: internals shared by the files of src/store (not part of the contract).
 */
#ifndef LP_STORE_INT_H
#define LP_STORE_INT_H

#include "store/store.h"

#define LP_STORE_STMT_CACHE 64

struct lp_store {
    sqlite3 *db;
    char *root;
    char *path;         /* the database file */
    uint64_t dev, ino;  /* its identity at open: a pooled connection checks it on reuse */
    lp_store_mode mode;
    bool heap_wal;      /* read-only, never writes the -shm (opened so on a full disk) */
    int pinned;
    struct {
        const char *sql; /* pointer identity: callers pass string constants */
        sqlite3_stmt *stmt;
    } cache[LP_STORE_STMT_CACHE];
    size_t ncache;
};

/* Create the schema or migrate it; read-only connections only check. */
lp_status lp_store_schema_ensure(lp_store *st, bool writable, lp_error *err);

#endif
