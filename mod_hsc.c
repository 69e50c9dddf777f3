/* mod_hsc.c: not written yet */
