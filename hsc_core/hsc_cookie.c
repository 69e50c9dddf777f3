/* hsc_cookie.c: not written yet */
