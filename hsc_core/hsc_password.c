/* hsc_password.c: not written yet */
