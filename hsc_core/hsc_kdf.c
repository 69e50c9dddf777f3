/* hsc_kdf.c: not written yet */
