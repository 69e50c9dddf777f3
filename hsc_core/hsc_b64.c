/* hsc_b64.c: not written yet */
