/*
 * keys.c: hsc-admin keygen: make a key file, add a key (first: signs;
 * last: --verify-only), move one first (--sign), remove one (--retire);
 * every edit under an exclusive lock, renamed into place.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pwd.h>
#include <sys/stat.h>
#include <syslog.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <apr_general.h>
#include <apr_pools.h>

#include "hsc_util.h"
#include "hsc_b64.h"
#include "hsc_kdf.h"
#include "hsc_keys.h"
#include "hsc_keyfile.h"
#include "hsc_cookie.h"
#include "hsc_password.h"
#include "hsc_version.h"
#include "hsc_store.h"
#include "hsc_audit.h"
#include "hsc_defaults.h"
#include "hsc_parse.h"

#include "hsc_admin.h"

/* --- keygen ----------------------------------------------------------------
 */

int write_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, p, len);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Load path as a key ring; on success *pkr is set and warnings printed. */
hsc_status_t load_keys(apr_pool_t *p, const char *path, hsc_keyring_t **pkr)
{
    const char *msg = NULL;
    hsc_status_t st;

    st = hsc_keyring_load(p, path, pkr, &msg);
    if (st == HSC_OK && msg != NULL) {
        fprintf(stderr, "hsc-admin: warning: %s\n", msg);
    }
    else if (st != HSC_OK) {
        fail(EX_FILE, "%s", msg ? msg : hsc_strerror(st));
    }
    return st;
}

/* fsync the directory holding path, so a rename survives a crash. */
static void sync_dir_of(const char *path)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    int fd;

    if (slash == NULL) {
        snprintf(dir, sizeof(dir), ".");
    }
    else if (slash == path) {
        snprintf(dir, sizeof(dir), "/");
    }
    else {
        snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
    }
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* Create a new key file holding line, mode 0600 whatever the umask. */
static int keygen_create(apr_pool_t *pool, const char *path, const char *line,
                         const char *kid)
{
    hsc_keyring_t *kr;
    int fd;

    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        return -1; /* errno says why; EEXIST means rotate */
    }
    if (fchmod(fd, 0600) != 0 || write_all(fd, line, strlen(line)) != 0
        || fsync(fd) != 0) {
        int e = errno;

        close(fd);
        unlink(path);
        return fail(EX_FILE, "%s: %s", path, strerror(e));
    }
    close(fd);
    sync_dir_of(path);
    if (load_keys(pool, path, &kr) != HSC_OK) {
        unlink(path);
        return EX_FILE;
    }
    printf("%s: created with signing key %s\n", path, kid);
    return EX_OK;
}

/*
 * Rewrite an existing key file: read it, let hsc_keyfile_rotate rewrite
 * and check the text (op: a new line first or last, kid's line first, or
 * kid's line gone), write that to a temporary file beside it (0600), load
 * that back, rename it over. arg is the new line (SIGN, VERIFY_ONLY) or
 * the key id (PROMOTE, RETIRE); kid names the key in messages.
 */
/*
 * Open the key file and lock it (flock, exclusive) against another
 * hsc-admin editing it at the same time: the second waits, then reads what
 * the first wrote. The rename replaces the file, so a lock taken on the
 * file just replaced is taken again on the new one. *fd, *sb; EX_OK or the
 * exit code (said).
 */
static int open_locked(const char *path, int *fd, struct stat *sb)
{
    struct stat now;

    for (;;) {
        *fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (*fd < 0) {
            return fail(EX_FILE, "%s: %s%s", path, strerror(errno),
                        errno == ELOOP
                            ? " (a symbolic link: give the real path)"
                            : "");
        }
        if (flock(*fd, LOCK_EX) != 0) {
            return fail(EX_FILE, "%s: lock: %s", path, strerror(errno));
        }
        if (fstat(*fd, sb) != 0 || !S_ISREG(sb->st_mode)) {
            return fail(EX_FILE, "%s: not a regular file", path);
        }
        if (stat(path, &now) == 0 && now.st_ino == sb->st_ino
            && now.st_dev == sb->st_dev) {
            return EX_OK;
        }
        close(*fd); /* replaced while we waited: lock the new one */
    }
}

/* The whole file into *text (malloc, st_size + 2 bytes), *len. */
static int read_keyfile(const char *path, int fd, const struct stat *sb,
                        char **text, size_t *len)
{
    *len = 0;
    if (sb->st_size > KEYFILE_MAX) {
        return fail(EX_FILE, "%s: too large for a key file", path);
    }
    if ((*text = malloc((size_t)sb->st_size + 2)) == NULL) {
        return fail(EX_FILE, "out of memory");
    }
    while (*len < (size_t)sb->st_size) {
        ssize_t n = read(fd, *text + *len, (size_t)sb->st_size - *len);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return fail(EX_FILE, "%s: read: %s", path,
                        n < 0 ? strerror(errno) : "file shrank");
        }
        *len += (size_t)n;
    }
    return EX_OK;
}

/* out into a new temporary file beside path (tmp: its name, "" if none),
 * mode 0600, the old file's owner when we may, synced. */
static int write_beside(const char *path, const struct stat *sb,
                        const char *out, size_t outlen, char *tmp,
                        size_t tmpcap)
{
    int tfd, rc = EX_OK;

    if (snprintf(tmp, tmpcap, "%s.XXXXXX", path) >= (int)tmpcap) {
        tmp[0] = '\0';
        return fail(EX_FILE, "%s: path too long", path);
    }
    if ((tfd = mkstemp(tmp)) < 0) {
        tmp[0] = '\0';
        return fail(EX_FILE, "%s: cannot create a temporary file: %s", path,
                    strerror(errno));
    }
    if (fchmod(tfd, 0600) != 0) {
        rc = fail(EX_FILE, "%s: chmod: %s", tmp, strerror(errno));
    }
    /* Keep the owner (e.g. root) when we may; the mode stays 0600. */
    else if (fchown(tfd, sb->st_uid, sb->st_gid) != 0) {
        /* not permitted: the file becomes ours, which is what we can do */
    }
    if (rc == EX_OK && (write_all(tfd, out, outlen) != 0 || fsync(tfd) != 0)) {
        rc = fail(EX_FILE, "%s: write: %s", tmp, strerror(errno));
    }
    close(tfd);
    return rc;
}

/* What keygen says it did. */
static void say_rotated(const char *path, hsc_rotate_t op, const char *kid,
                        const char *old_signer, int count)
{
    switch (op) {
    case HSC_ROTATE_SIGN:
        printf("%s: new signing key %s; %d keys (the older ones still "
               "verify)\n",
               path, kid, count);
        break;
    case HSC_ROTATE_VERIFY_ONLY:
        printf("%s: new key %s staged, verify-only (%s still signs); %d keys\n",
               path, kid, old_signer, count);
        break;
    case HSC_ROTATE_PROMOTE:
        printf("%s: %s signs now; %d keys (the others still verify)\n", path,
               kid, count);
        break;
    case HSC_ROTATE_RETIRE:
        printf("%s: key %s retired; %d keys\n", path, kid, count);
        break;
    }
}

static int keygen_rotate(apr_pool_t *pool, const char *path, hsc_rotate_t op,
                         const char *arg, const char *kid)
{
    char tmp[4096];
    char *text = NULL;
    struct stat sb;
    hsc_keyring_t *kr = NULL, *old = NULL;
    const char *msg = NULL;
    char *out = NULL;
    char old_signer[HSC_KID_MAX + 1];
    size_t len = 0, outlen = 0;
    int fd = -1, rc, new_count = 0;
    hsc_status_t st;

    tmp[0] = '\0';
    old_signer[0] = '\0';
    sb.st_size = 0;
    if ((rc = open_locked(path, &fd, &sb)) != EX_OK
        || (rc = read_keyfile(path, fd, &sb, &text, &len)) != EX_OK) {
        goto cleanup;
    }
    /* The old signer, for the message (the text loads: checked next). */
    if (hsc_keyring_parse(pool, path, text, len, &old, &msg) == HSC_OK) {
        snprintf(old_signer, sizeof(old_signer), "%s",
                 hsc_key_id(hsc_keyring_signer(old)));
    }
    /* The rewrite itself, checked, is the library's. */
    st = hsc_keyfile_rotate(pool, path, text, len, op, arg, &out, &outlen,
                            &new_count, &msg);
    if (st != HSC_OK) {
        rc = fail(st == HSC_EEXISTS || st == HSC_ENOKEY ? EX_INPUT : EX_FILE,
                  "%s", msg ? msg : hsc_strerror(st));
        goto cleanup;
    }
    if ((rc = write_beside(path, &sb, out, outlen, tmp, sizeof(tmp)))
        != EX_OK) {
        goto cleanup;
    }
    rc = EX_FILE;
    if (load_keys(pool, tmp, &kr) != HSC_OK) {
        goto cleanup;
    }
    if (strcmp(hsc_key_id(hsc_keyring_signer(kr)),
               op == HSC_ROTATE_SIGN || op == HSC_ROTATE_PROMOTE ? kid
                                                                 : old_signer)
            != 0
        || hsc_keyring_count(kr) != new_count) {
        rc = fail(EX_FILE,
                  "%s: the rewritten file is not what was asked; left "
                  "unchanged",
                  path);
        goto cleanup;
    }
    if (rename(tmp, path) != 0) {
        rc = fail(EX_FILE, "%s: rename: %s", path, strerror(errno));
        goto cleanup;
    }
    tmp[0] = '\0';
    sync_dir_of(path);
    say_rotated(path, op, kid, old_signer, new_count);
    rc = EX_OK;

cleanup:
    if (tmp[0] != '\0') {
        unlink(tmp);
    }
    if (fd >= 0) {
        close(fd); /* and the lock with it, after the rename */
    }
    if (text != NULL) {
        hsc_wipe(text, (size_t)sb.st_size + 2);
        free(text);
    }
    return rc;
}

int cmd_keygen(apr_pool_t *pool, const char *name, const args_t *a)
{
    (void)name;
    const char *path = a->pos[0];
    const char *kid = (a->given & OPT_KID) ? opt(a, OPT_KID) : NULL;
    char line[160], newkid[HSC_KID_MAX + 1];
    size_t n;
    hsc_status_t st;
    int rc;

    const char *sign = (a->given & OPT_SIGN) ? opt(a, OPT_SIGN) : NULL;
    const char *retire = (a->given & OPT_RETIRE) ? opt(a, OPT_RETIRE) : NULL;

    if (!!sign + !!retire + !!(a->given & (OPT_KID | OPT_VERIFY_ONLY)) > 1) {
        return usage_error("keygen: --sign and --retire take no other option");
    }
    if (sign != NULL || retire != NULL) {
        /* Several nodes: stage (--verify-only) everywhere, then --sign,
         * then --retire the old key, reloading every node each time. */
        kid = sign ? sign : retire;
        if (!hsc_kid_valid(kid, strlen(kid))) {
            return fail(EX_INPUT, "invalid key id \"%s\"", kid);
        }
        return keygen_rotate(pool, path,
                             sign ? HSC_ROTATE_PROMOTE : HSC_ROTATE_RETIRE, kid,
                             kid);
    }
    if (kid != NULL && !hsc_kid_valid(kid, strlen(kid))) {
        return fail(EX_INPUT,
                    "invalid key id \"%s\" (1-%d characters of A-Z a-z 0-9 _ "
                    "-)",
                    kid, HSC_KID_MAX);
    }
    st = hsc_key_generate_line(kid, line, sizeof(line));
    if (st != HSC_OK) {
        return fail(EX_FILE, "cannot generate a key: %s", hsc_strerror(st));
    }
    n = strcspn(line, " \t");
    if (n == 0 || n > HSC_KID_MAX) {
        hsc_wipe(line, sizeof(line));
        return fail(EX_FILE, "cannot generate a key: bad key line");
    }
    memcpy(newkid, line, n);
    newkid[n] = '\0';
    rc = keygen_create(pool, path, line, newkid);
    if (rc == -1) {
        if (errno == EEXIST) {
            rc = keygen_rotate(pool, path,
                               (a->given & OPT_VERIFY_ONLY)
                                   ? HSC_ROTATE_VERIFY_ONLY
                                   : HSC_ROTATE_SIGN,
                               line, newkid);
        }
        else {
            rc = fail(EX_FILE, "%s: %s", path, strerror(errno));
        }
    }
    hsc_wipe(line, sizeof(line));
    return rc;
}
