/*
 * replay.c: run every file of a fuzz corpus through LLVMFuzzerTestOneInput()
 * once, without libFuzzer, and print TAP. `make check` links it with each
 * fuzz_<target>.c so the committed corpus is a regression test on any
 * compiler.
 *
 *   replay_<target> [DIR]   DIR defaults to test/fuzz/corpus/<target>/ of
 *                           the source tree (HSC_SRCDIR, set at build)
 *
 * A property violation aborts the process (automake reports the test as an
 * error); an empty or missing corpus is a failure, so a wrong path can never
 * pass by running nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hsc_fuzz.h"

#ifndef HSC_SRCDIR
#define HSC_SRCDIR "."
#endif

/* Larger files are not corpus entries: libFuzzer's default -max_len. */
#define REPLAY_MAX_FILE (1024 * 1024)

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reads path into a malloc'd buffer of exactly its size (so ASan sees any
 * read past the end). Returns 0 on success. */
static int read_file(const char *path, uint8_t **pbuf, size_t *plen)
{
    FILE *f;
    struct stat st;
    uint8_t *buf;
    size_t len;

    *pbuf = NULL;
    *plen = 0;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)
        || st.st_size > REPLAY_MAX_FILE) {
        return -1;
    }
    len = (size_t)st.st_size;
    /* malloc(0) may return NULL: keep one byte but report length 0. */
    buf = malloc(len ? len : 1);
    if (buf == NULL) {
        return -1;
    }
    f = fopen(path, "rb");
    if (f == NULL) {
        free(buf);
        return -1;
    }
    if (len && fread(buf, 1, len, f) != len) {
        fclose(f);
        free(buf);
        return -1;
    }
    fclose(f);
    *pbuf = buf;
    *plen = len;
    return 0;
}

/* test/fuzz/corpus/<target>/ for a program named replay_<target>. */
static const char *default_corpus(const char *prog)
{
    static char dir[2048]; /* with a name, fits replay's 4096-byte paths */
    const char *base = strrchr(prog, '/');
    const char *target;

    base = base != NULL ? base + 1 : prog;
    /* libtool may run the program as lt-replay_<target> */
    target = strstr(base, "replay_");
    target = target != NULL ? target + 7 : base;
    snprintf(dir, sizeof(dir), "%s/test/fuzz/corpus/%s", HSC_SRCDIR, target);
    return dir;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : default_corpus(argv[0]);
    const char *label;
    DIR *d;
    struct dirent *de;
    char **names = NULL;
    size_t n = 0, cap = 0, i;
    int failed = 0;

    /* Label files as "<corpus dir's last component>/<file>". */
    label = strrchr(dir, '/');
    label = (label && label[1]) ? label + 1 : dir;

    d = opendir(dir);
    if (d == NULL) {
        printf("1..1\nnot ok 1 - corpus %s: %s\n", dir, strerror(errno));
        return 1;
    }
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') {
            continue;
        }
        if (n == cap) {
            char **nn;
            cap = cap ? cap * 2 : 64;
            nn = realloc(names, cap * sizeof(*names));
            if (nn == NULL) {
                closedir(d);
                printf("Bail out! out of memory\n");
                return 1;
            }
            names = nn;
        }
        names[n] = strdup(de->d_name);
        if (names[n] == NULL) {
            closedir(d);
            printf("Bail out! out of memory\n");
            return 1;
        }
        n++;
    }
    closedir(d);

    if (n == 0) {
        printf("1..1\nnot ok 1 - corpus %s: no files found\n", dir);
        return 1;
    }
    qsort(names, n, sizeof(*names), name_cmp);

    printf("1..%zu\n", n);
    for (i = 0; i < n; i++) {
        char path[4096];
        uint8_t *buf;
        size_t len;

        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        if (read_file(path, &buf, &len) != 0) {
            printf("not ok %zu - %s/%s: unreadable\n", i + 1, label, names[i]);
            failed++;
            free(names[i]);
            continue;
        }
        /* A violated property aborts inside this call. */
        fflush(stdout);
        LLVMFuzzerTestOneInput(buf, len);
        printf("ok %zu - %s/%s (%zu bytes)\n", i + 1, label, names[i], len);
        free(buf);
        free(names[i]);
    }
    free(names);
    return failed ? 1 : 0;
}
