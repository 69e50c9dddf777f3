/* hsc_keys.c: not written yet */
