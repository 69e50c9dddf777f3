/* hsc_http.c: not written yet */
