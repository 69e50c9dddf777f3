/* hsc_store.c: not written yet */
