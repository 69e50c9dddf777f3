/* hsc_util.c: not written yet */
