/*
 * tty.c: reading a password: from the terminal, twice and without echo
 * (restored on a signal), or one line of standard input. Never from the
 * command line; every buffer that held one is wiped.
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

/* --- passwords -------------------------------------------------------------
 */

static int tty_fd = -1;
static struct termios tty_saved;
static volatile sig_atomic_t tty_echo_off;

static void restore_tty(void)
{
    if (tty_echo_off) {
        tcsetattr(tty_fd, TCSAFLUSH, &tty_saved);
        tty_echo_off = 0;
    }
}

/* Turn the echo back on before dying of a signal. */
static void on_signal(int sig)
{
    restore_tty();
    signal(sig, SIG_DFL);
    raise(sig);
}

/*
 * Read one line from fd into buf (cap bytes) byte by byte, so no copy of
 * the password lingers in a stdio buffer. Strips "\n" or "\r\n".
 * Returns the length, -1 at end of input with nothing read, -2 when the
 * line is longer than HSC_PASSWORD_MAX bytes, -3 on a read error.
 */
static long read_line(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    int got_any = 0, toolong = 0;
    char c;

    for (;;) {
        ssize_t r = read(fd, &c, 1);

        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r < 0) {
            return -3;
        }
        if (r == 0) {
            if (!got_any) {
                return -1;
            }
            break;
        }
        got_any = 1;
        if (c == '\n') {
            break;
        }
        if (n < cap) {
            buf[n++] = c;
        }
        else {
            toolong = 1; /* keep reading to the end of the line */
        }
    }
    c = 0;
    if (n > 0 && buf[n - 1] == '\r') {
        n--;
    }
    if (toolong || n > HSC_PASSWORD_MAX) {
        hsc_wipe(buf, cap);
        return -2;
    }
    return (long)n;
}

/* Prompt on the terminal and read a line without echo. */
static long read_tty(const char *prompt, char *buf, size_t cap)
{
    struct termios t;
    struct sigaction sa, old_int, old_term, old_hup;
    long n;

    if (write(tty_fd, prompt, strlen(prompt)) < 0) {
        return -3;
    }
    if (tcgetattr(tty_fd, &tty_saved) != 0) {
        return -3;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);
    t = tty_saved;
    t.c_lflag &= ~(tcflag_t)(ECHO | ECHOE | ECHOK | ECHONL);
    tty_echo_off = 1;
    if (tcsetattr(tty_fd, TCSAFLUSH, &t) != 0) {
        tty_echo_off = 0;
        n = -3;
    }
    else {
        n = read_line(tty_fd, buf, cap);
        restore_tty();
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    if (write(tty_fd, "\n", 1) < 0) {
        /* the newline is cosmetic */
    }
    return n;
}

/*
 * Get a password: one line of stdin, or from the terminal (twice when
 * confirm). buf has HSC_PASSWORD_MAX + 1 bytes. Returns EX_OK and *len.
 */
int get_password(int from_stdin, int confirm, int allow_empty, char *buf,
                 size_t *len)
{
    char again[HSC_PASSWORD_MAX + 1];
    long n, m;
    int rc = EX_OK;

    *len = 0;
    if (from_stdin) {
        n = read_line(STDIN_FILENO, buf, HSC_PASSWORD_MAX + 1);
    }
    else {
        tty_fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (tty_fd < 0) {
            return fail(EX_USAGE, "no terminal to read the password from (use "
                                  "--password-stdin)");
        }
        n = read_tty("Password: ", buf, HSC_PASSWORD_MAX + 1);
        if (n >= 0 && confirm) {
            m = read_tty("Retype password: ", again, sizeof(again));
            if (m != n || !hsc_ct_equal(buf, again, (size_t)n)) {
                rc = fail(EX_INPUT, "the passwords do not match");
            }
            hsc_wipe(again, sizeof(again));
        }
        close(tty_fd);
        tty_fd = -1;
    }
    if (rc == EX_OK) {
        if (n == -1) {
            rc = fail(EX_INPUT, "no password given");
        }
        else if (n == -2) {
            rc = fail(EX_INPUT, "password longer than %d bytes",
                      HSC_PASSWORD_MAX);
        }
        else if (n < 0) {
            rc = fail(EX_FILE, "cannot read the password: %s", strerror(errno));
        }
        else if (n == 0 && !allow_empty) {
            rc = fail(EX_INPUT, "empty password refused");
        }
    }
    if (rc != EX_OK) {
        hsc_wipe(buf, HSC_PASSWORD_MAX + 1);
        return rc;
    }
    *len = (size_t)n;
    return EX_OK;
}
