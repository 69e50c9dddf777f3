/* hsc_store_sqlite.c: not written yet */
