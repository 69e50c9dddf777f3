#!/bin/sh
# test/admin/hsc-admin.sh: hsc-admin end to end, in TAP. Runs the built
# binary ($top_builddir/hsc-admin, set by `make check`, default .) on a
# temporary database and key file: every command, its errors and exit
# codes, the key file's mode and rotation, and `inspect` on cookies.
#
# The cookies are minted here with openssl(1) and sqlite3(1) straight from
# the formulas of hsc-v1.md (scrypt x_n from the salt in the database, the
# derived MAC key, the MAC over "value \n scope \n address"), not with the
# C code under test: so this also checks that anything that follows the
# spec interoperates with mod_hsc's core. The minter is itself first
# checked against the published test vector.
#
# Needs: openssl, sqlite3, od, stat (coreutils), setsid (util-linux); as
# root also runuser, to read the database as an unprivileged user.
set -u

top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
top_srcdir=$(cd "$top_srcdir" && pwd)
ADMIN="$top_builddir/hsc-admin"
case $ADMIN in /*) ;; *) ADMIN="$(pwd)/$ADMIN" ;; esac

T=$(mktemp -d "${TMPDIR:-/tmp}/hsc-admin-test.XXXXXX") || exit 1
chmod 755 "$T"
trap 'rm -rf "$T"' EXIT INT TERM
cd "$T" || exit 1

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() {
    n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"
    [ -s "$T/err" ] && sed 's/^/#   stderr: /' "$T/err" | head -5
    return 0
}
# check DESC COMMAND...: one assertion on a command's success.
check() { d=$1; shift; if "$@"; then ok "$d"; else notok "$d"; fi; }

# run [-i INPUT] CMD...: stdout in $T/out, stderr in $T/err, status in $rc.
run() {
    if [ "$1" = -i ]; then
        printf '%s' "$2" >"$T/in"; shift 2
    else
        : >"$T/in"
    fi
    "$@" <"$T/in" >"$T/out" 2>"$T/err"
    rc=$?
}
# expect RC DESC [-i INPUT] CMD...: run, and assert the exit status.
expect() {
    want=$1; d=$2; shift 2
    run "$@"
    if [ "$rc" = "$want" ]; then ok "$d (exit $want)"
    else notok "$d (exit $rc, expected $want)"; fi
}
out_has() { grep -q -- "$1" "$T/out"; }
err_has() { grep -q -- "$1" "$T/err"; }
# err_is_one_line: the error is a single "hsc-admin: ..." line.
err_is_one_line() {
    [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q '^hsc-admin: ' "$T/err"
}

b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
hex() { od -An -v -tx1 | tr -d ' \n'; }
# unhex HEX: the bytes (octal escapes: POSIX printf has no \x).
unhex() {
    s=$1 esc=""
    while [ -n "$s" ]; do
        esc="$esc$(printf '\\%03o' "0x${s%"${s#??}"}")"
        s=${s#??}
    done
    printf "$esc"
}
# The secret of key KID in FILE, in hex.
key_hex() {
    s=$(awk -v k="$2" '$1 == k { print $2 }' "$1" | tr -- '-_' '+/')
    while [ $(( ${#s} % 4 )) -ne 0 ]; do s="$s="; done
    printf '%s' "$s" | openssl base64 -d -A | hex
}
# mint SECRET_HEX KID USER IAT EXP XN_HEX SCOPE ADDRESS: a format 1 value.
mint() {
    k=$(printf 'hsc-cookie-mac-v1' \
        | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$1" -binary | hex)
    u=$(printf '%s' "$3" | b64url)
    a=$(unhex "$6" | b64url)
    signed="1.$2.$u.$4.$5.$a"
    m=$(printf '%s\n%s\n%s' "$signed" "$7" "$8" \
        | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$k" -binary | b64url)
    printf '%s.%s' "$signed" "$m"
}
# scrypt_xn PASSWORD SALT_HEX N r p: x_n in hex.
scrypt_xn() {
    openssl kdf -keylen 32 -kdfopt "pass:$1" -kdfopt "hexsalt:$2" \
        -kdfopt "n:$3" -kdfopt "r:$4" -kdfopt "p:$5" SCRYPT \
        | tr -d ':\n' | tr 'A-F' 'a-f'
}

DB=$T/users.db
KEYS=$T/hsc.keys
FAST=scrypt:1024:8:1

# --- usage --------------------------------------------------------------------
expect 0 "--help" "$ADMIN" --help
check "--help prints the usage on stdout" out_has "hsc-admin inspect"
expect 0 "--version" "$ADMIN" --version
want_version=$(sed -n 's/^#define HSC_VERSION "\(.*\)"$/\1/p' \
    "$top_srcdir/hsc_core/hsc_version.h")
check "--version prints HSC_VERSION ($want_version)" \
    test "$(cat "$T/out")" = "hsc-admin (mod_hsc) $want_version"
expect 2 "no command" "$ADMIN"
check "usage goes to stderr" err_has "^usage:"
expect 2 "unknown command" "$ADMIN" frobnicate "$DB"
check "names the command" err_has 'unknown command "frobnicate"'
expect 2 "missing argument" "$ADMIN" add "$DB"
expect 2 "too many arguments" "$ADMIN" list "$DB" extra
expect 2 "an option the command does not take" "$ADMIN" list "$DB" --kdf "$FAST"
expect 2 "an unknown option" "$ADMIN" add "$DB" bob --frob
expect 2 "an option without its value" "$ADMIN" add "$DB" bob --kdf
expect 2 "an option twice" "$ADMIN" add "$DB" bob --groups a --groups b
expect 2 "inspect without --keys" "$ADMIN" inspect COOKIE

# --- init -----------------------------------------------------------------
expect 4 "a missing database" "$ADMIN" list "$DB"
check "says so" err_has "no such file"
check "in one line" err_is_one_line
check "and creates nothing" test ! -e "$DB"
expect 0 "init" "$ADMIN" init "$DB"
check "database mode 0600" test "$(stat -c %a "$DB")" = 600
check "application_id is HSC1" \
    test "$(sqlite3 "$DB" 'PRAGMA application_id')" = 1213416241
check "user_version is 7" test "$(sqlite3 "$DB" 'PRAGMA user_version')" = 7
check "the TOTP state file beside it, mode 0600" \
    test "$(stat -c %a "$DB-state")" = 600
store_id=$(sqlite3 "$DB" 'SELECT store_id FROM hsc_meta WHERE id = 1')
check "a store id of 32 hex digits in hsc_meta" \
    expr "$store_id" : '[0-9a-f]\{32\}$'
check "init prints it" out_has "store id $store_id\$"
expect 0 "init again is harmless" "$ADMIN" init "$DB"
check "and says so" out_has "already"
check "with the same store id" out_has "store id $store_id\$"

# A file of schema version 1 (mod_hsc before the store id): read as it
# is, upgraded in place by init with its users kept.
"$ADMIN" init "$T/v1.db" >/dev/null
sqlite3 "$T/v1.db" "DROP TRIGGER hsc_users_passkeys_go; DROP TABLE hsc_passkeys; \
    DROP TABLE hsc_passkey_users; ALTER TABLE hsc_users DROP COLUMN passkey_seals; \
    DROP TRIGGER hsc_users_tokens_go; DROP TABLE hsc_tokens; \
    DROP TRIGGER hsc_users_factors_go; DROP TABLE hsc_totp; \
    DROP TABLE hsc_recovery; DROP TABLE hsc_links; \
    ALTER TABLE hsc_users DROP COLUMN gen; \
    INSERT INTO hsc_users VALUES ('old', zeroblob(16), \
    'sha256-chain:1', zeroblob(32), 'g', 0, 0, 1, 1); DROP TABLE hsc_meta; \
    PRAGMA user_version = 1"
expect 0 "list reads a version 1 file" "$ADMIN" list "$T/v1.db"
check "and its user" out_has "^old"
check "without upgrading it" \
    test "$(sqlite3 "$T/v1.db" 'PRAGMA user_version')" = 1
expect 0 "init upgrades a version 1 file" "$ADMIN" init "$T/v1.db"
check "to version 7" test "$(sqlite3 "$T/v1.db" 'PRAGMA user_version')" = 7
v1_id=$(sqlite3 "$T/v1.db" 'SELECT store_id FROM hsc_meta')
check "with a new store id, printed" out_has "up to date, store id $v1_id\$"
check "unlike the other database's" test "$v1_id" != "$store_id"
check "keeping its user" \
    test "$(sqlite3 "$T/v1.db" "SELECT groups FROM hsc_users")" = g

sqlite3 "$T/foreign.db" 'CREATE TABLE t (x)'
expect 4 "a foreign SQLite database" "$ADMIN" list "$T/foreign.db"
check "is not an hsc user database" err_has "not an hsc user database"
expect 4 "init refuses it too" "$ADMIN" init "$T/foreign.db"
check "and leaves it alone" \
    test "$(sqlite3 "$T/foreign.db" 'SELECT count(*) FROM sqlite_master')" = 1
head -c 4096 /dev/urandom >"$T/garbage.db"
expect 4 "a garbage file" "$ADMIN" list "$T/garbage.db"
check "is not an hsc user database" err_has "not an hsc user database"
expect 4 "a directory" "$ADMIN" list "$T"

# --- add ------------------------------------------------------------------
expect 0 "add alice" -i "s3cret pass
" "$ADMIN" add "$DB" alice --groups staff,admins --kdf "$FAST" --password-stdin --force
expect 3 "add alice twice" -i "x
" "$ADMIN" add "$DB" alice --kdf "$FAST" --password-stdin
check "says the user exists" err_has "alice: user already exists"
expect 0 "add bob with --opt=value and CRLF" -i "pw-bob
" "$ADMIN" add "$DB" bob --kdf=sha256-chain:1000 --password-stdin --force
expect 3 "a control character in a username" -i "x
" "$ADMIN" add "$DB" "$(printf 'a\tb')" --kdf "$FAST" --password-stdin
check "says invalid username" err_has "invalid username"
check "in one line" err_is_one_line
expect 3 "a username over 255 bytes" -i "x
" "$ADMIN" add "$DB" "$(printf '%0256d' 0)" --kdf "$FAST" --password-stdin
expect 3 "a malformed SPEC" -i "x
" "$ADMIN" add "$DB" carol --kdf md5:1 --password-stdin
check "names the SPEC" err_has 'kdf SPEC "md5:1"'
expect 3 "scrypt N not a power of two" -i "x
" "$ADMIN" add "$DB" carol --kdf scrypt:1000:8:1 --password-stdin
expect 3 "a space in a group name" -i "x
" "$ADMIN" add "$DB" carol --groups "a b" --kdf "$FAST" --password-stdin
check "names the group" err_has 'invalid group name "a b"'
expect 3 "an empty group name" -i "x
" "$ADMIN" add "$DB" carol --groups "a,,b" --kdf "$FAST" --password-stdin
expect 3 "a group listed twice" -i "x
" "$ADMIN" add "$DB" carol --groups "a,a" --kdf "$FAST" --password-stdin
expect 3 "an empty password" -i "
" "$ADMIN" add "$DB" carol --kdf "$FAST" --password-stdin
expect 3 "no password at all" -i "" \
    "$ADMIN" add "$DB" carol --kdf "$FAST" --password-stdin
long=$(printf '%01025d' 0)
expect 3 "a 1025-byte password" -i "$long
" "$ADMIN" add "$DB" carol --kdf "$FAST" --password-stdin
check "says too long" err_has "longer than 1024 bytes"
expect 0 "a 1024-byte password" -i "${long#0}
" "$ADMIN" add "$DB" carol --kdf "$FAST" --password-stdin
expect 2 "no terminal and no --password-stdin" \
    setsid -w "$ADMIN" add "$DB" dave --kdf "$FAST"
check "says to use --password-stdin" err_has "password-stdin"
check "none of the refused users was stored" \
    test "$(sqlite3 "$DB" 'SELECT group_concat(username) FROM
          (SELECT username FROM hsc_users ORDER BY 1)')" = "alice,bob,carol"

# --- the password policy of add and passwd (hsc_core/hsc_policy.h) ----------
# Its own database, so that the users it adds disturb no list below.
P="$T/policy.db"
expect 0 "init a database for the policy" "$ADMIN" init "$P"
expect 3 "a password of 14 characters is refused" -i "fourteen-chars
" "$ADMIN" add "$P" erin --kdf "$FAST" --password-stdin
check "says the minimum" err_has "at least 15 characters"
check "says how to override it" err_has "[-][-]force"
check "in one line" err_is_one_line
expect 0 "15 characters are enough" -i "fifteen-chars!!
" "$ADMIN" add "$P" erin --kdf "$FAST" --password-stdin
expect 3 "characters, not bytes: 14 two-byte letters are too few" -i "ééééééééééééé!
" "$ADMIN" add "$P" fay --kdf "$FAST" --password-stdin
expect 3 "a listed password is refused, whatever its capitals" -i "PassWord
" "$ADMIN" add "$P" fay --kdf "$FAST" --password-stdin --min-length 8
check "says it is a common one" err_has "commonly used passwords"
expect 3 "the username as the password is refused" -i "fay-the-site-admin
" "$ADMIN" add "$P" fay-the-site-admin --kdf "$FAST" --password-stdin
expect 0 "--min-length 8 --blocklist none takes what they allow" -i "password
" "$ADMIN" add "$P" fay --kdf "$FAST" --password-stdin --min-length 8 \
    --blocklist none
expect 2 "--min-length under 8 is a usage error" -i "whatever-long-enough
" "$ADMIN" add "$P" gus --kdf "$FAST" --password-stdin --min-length 7
expect 4 "--blocklist of a missing file" -i "whatever-long-enough
" "$ADMIN" add "$P" gus --kdf "$FAST" --password-stdin --blocklist "$T/none.txt"
printf '# our own\nexample-site-2026-spring\n' >"$T/ours.txt"
expect 3 "--blocklist FILE: a list of one's own" -i "Example-Site-2026-Spring
" "$ADMIN" add "$P" gus --kdf "$FAST" --password-stdin --blocklist "$T/ours.txt"
expect 0 "--force stores a weak password" -i "pw
" "$ADMIN" add "$P" gus --kdf "$FAST" --password-stdin --force
expect 3 "passwd applies the policy too" -i "short-one
" "$ADMIN" passwd "$P" erin --kdf "$FAST" --password-stdin
expect 0 "hsc-admin recovery-codes erin (a second factor)" \
    "$ADMIN" recovery-codes "$P" erin --count 1
expect 0 "beside a second factor 8 characters are enough" -i "short-one
" "$ADMIN" passwd "$P" erin --kdf "$FAST" --password-stdin
expect 3 "but not 7" -i "short-1
" "$ADMIN" passwd "$P" erin --kdf "$FAST" --password-stdin
# --- one-time links (t/34_links.t uses them on the account page) -------------
expect 2 "link without --for" "$ADMIN" link "$P" erin
expect 2 "link --for something else" "$ADMIN" link "$P" erin --for admin
expect 2 "link --ttl under a minute" "$ADMIN" link "$P" erin --for reset \
    --ttl 10s
expect 2 "link --ttl over 30 days" "$ADMIN" link "$P" erin --for reset \
    --ttl 31d
expect 0 "link --list of none" "$ADMIN" link "$P" --list
check "prints nothing" test ! -s "$T/out"
expect 0 "link --for reset" "$ADMIN" link "$P" erin --for reset
check "the path and query alone on standard output" \
    out_has "^/account?link=[A-Za-z0-9_-]\{43\}$"
check "and its secret is not in the database" sh -c "! grep -q \
    '$(sed -n 's/.*link=//p' "$T/out")' '$P'"
check "the purpose and expiry on standard error" \
    err_has "erin: reset link, valid once until"
check "a reset link says nothing of passkeys" sh -c "! grep -q passkey '$T/err'"
expect 0 "link --for enrol" "$ADMIN" link "$P" erin --for enrol
check "printed once, alone on standard output" \
    test "$(grep -c 'link=' "$T/out")" = 1
check "its purpose on standard error, no warning (a link never seals a passkey)" \
    sh -c "grep -q 'erin: enrol link, valid once until' '$T/err' && ! grep -q 'reset link' '$T/err'"
expect 0 "link --list" "$ADMIN" link "$P" --list
check "lists it" out_has "^erin reset "
check "and the enrolment link" out_has "^erin enrol "
expect 0 "link --revoke" "$ADMIN" link "$P" erin --revoke
check "deletes them" out_has "erin: 2 links deleted"
# A password change, a revocation and disabling delete the user's links in
# the same transaction (a reset link must not outlive them); other users'
# links stay.
links_of() { sqlite3 "$P" "SELECT count(*) FROM hsc_links WHERE username = '$1'"; }
for how in passwd revoke disable; do
    "$ADMIN" link "$P" erin --for reset >/dev/null 2>&1
    "$ADMIN" link "$P" erin --for enrol >/dev/null 2>&1
    "$ADMIN" link "$P" fay --for reset >/dev/null 2>&1
    check "erin has two links before $how" test "$(links_of erin)" = 2
    if [ $how = passwd ]; then
        expect 0 "passwd erin" -i "a-new-long-password-for-erin
" "$ADMIN" passwd "$P" erin --kdf "$FAST" --password-stdin
    else
        expect 0 "$how erin" "$ADMIN" $how "$P" erin
    fi
    check "$how deletes erin's links" test "$(links_of erin)" = 0
    check "and keeps fay's" test "$(links_of fay)" = 1
done
expect 0 "enable erin" "$ADMIN" enable "$P" erin
expect 0 "fay's link revoked" "$ADMIN" link "$P" fay --revoke
expect 3 "link --for invite of a user who does not exist" \
    "$ADMIN" link "$P" newbie --for invite
check "names add --invite, what is meant" \
    err_has "newbie: no such user (to invite a new user: hsc-admin add $P newbie --invite)"
check "in one line" err_is_one_line
expect 3 "link --for reset of a user who does not exist" \
    "$ADMIN" link "$P" newbie --for reset
check "says no such user, nothing of invitations" \
    sh -c "grep -q 'newbie: no such user\$' '$T/err'"
expect 2 "add --invite with --password-stdin" "$ADMIN" add "$P" hal --invite \
    --password-stdin
expect 2 "add --ttl without --invite" -i "a long enough password
" "$ADMIN" add "$P" hal --ttl 1h --password-stdin
expect 0 "add --invite" "$ADMIN" add "$P" hal --invite --kdf "$FAST" \
    --url "https://example.org/account?x=1"
check "prints the invitation, --url's query kept" \
    out_has "^https://example.org/account?x=1&link=[A-Za-z0-9_-]\{43\}$"
expect 1 "the invited user has no password anyone knows" -i "
" "$ADMIN" check "$P" hal --password-stdin
check "the refused users were not stored" \
    test "$(sqlite3 "$P" 'SELECT group_concat(username) FROM
          (SELECT username FROM hsc_users ORDER BY 1)')" = "erin,fay,gus,hal"
check "the password is not in the database" \
    test "$(sqlite3 "$DB" "SELECT count(*) FROM hsc_users WHERE
          instr(CAST(salt AS TEXT) || authenticator, 's3cret') > 0")" = 0

# --- check ----------------------------------------------------------------
expect 0 "check the right password" -i "s3cret pass
" "$ADMIN" check "$DB" alice --password-stdin
check "says ok" out_has "alice: password ok"
expect 1 "check a wrong password" -i "s3cret pasS
" "$ADMIN" check "$DB" alice --password-stdin
check "says wrong password" err_has "alice: wrong password"
expect 0 "CRLF is stripped like LF" -i "pw-bob
" "$ADMIN" check "$DB" bob --password-stdin
expect 0 "the 1024-byte password checks" -i "${long#0}
" "$ADMIN" check "$DB" carol --password-stdin
expect 3 "check an unknown user" -i "x
" "$ADMIN" check "$DB" nobody --password-stdin
check "says no such user" err_has "nobody: no such user"

# --- list and groups ------------------------------------------------------
expect 0 "list" "$ADMIN" list "$DB"
check "one line a user" test "$(wc -l <"$T/out")" -eq 3
check "six tab-separated fields" \
    test "$(awk -F'\t' 'NF != 6' "$T/out" | wc -l)" -eq 0
check "alice's line" grep -q "^alice	staff,admins	enabled	$FAST	-	20" "$T/out"
check "bob's kdf" grep -q "^bob	-	enabled	sha256-chain:1000	-	" "$T/out"
expect 0 "groups prints them" "$ADMIN" groups "$DB" alice
check "as stored" test "$(cat "$T/out")" = "staff,admins"
expect 0 "groups replaces them" "$ADMIN" groups "$DB" alice ops,staff
expect 0 "groups prints the new ones" "$ADMIN" groups "$DB" alice
check "replaced" test "$(cat "$T/out")" = "ops,staff"
expect 3 "a bad group list" "$ADMIN" groups "$DB" alice "ops,"
expect 0 "unchanged after a refusal" "$ADMIN" groups "$DB" alice
check "still ops,staff" test "$(cat "$T/out")" = "ops,staff"
expect 0 "an empty list clears them" "$ADMIN" groups "$DB" bob ""
expect 0 "groups of bob" "$ADMIN" groups "$DB" bob
check "empty" test "$(cat "$T/out")" = ""
expect 3 "groups of an unknown user" "$ADMIN" groups "$DB" nobody

# --- disable, enable, revoke, passwd, del ---------------------------------
now=$(date +%s)
expect 0 "disable" "$ADMIN" disable "$DB" bob
rb=$(sqlite3 "$DB" "SELECT revoked_before FROM hsc_users WHERE username='bob'")
check "disabling also revokes: revoked_before is now + 1" \
    test "$rb" -ge $((now + 1)) -a "$rb" -le $((now + 6))
expect 1 "a disabled user's right password is refused" -i "pw-bob
" "$ADMIN" check "$DB" bob --password-stdin
check "says disabled" err_has "bob: user is disabled"
expect 0 "list shows disabled" "$ADMIN" list "$DB"
check "bob disabled" grep -q "^bob	-	disabled	" "$T/out"
expect 0 "enable" "$ADMIN" enable "$DB" bob
expect 0 "then the password works" -i "pw-bob
" "$ADMIN" check "$DB" bob --password-stdin
now=$(date +%s)
expect 0 "revoke" "$ADMIN" revoke "$DB" bob
rb=$(sqlite3 "$DB" "SELECT revoked_before FROM hsc_users WHERE username='bob'")
check "revoked_before is now + 1: this second's cookies too" \
    test "$rb" -ge $((now + 1)) -a "$rb" -le $((now + 6))
expect 0 "list shows the revocation" "$ADMIN" list "$DB"
check "bob revoked" grep -q "^bob	-	enabled	sha256-chain:1000	20" "$T/out"
# --- KDF ceilings, invisible characters in names -------------------------
expect 3 "a kdf above the chain ceiling is refused" -i "pw
" "$ADMIN" add "$DB" huge --kdf sha256-chain:20000001 --password-stdin
check "names the ceilings" err_has "above the ceilings"
expect 3 "scrypt over 256 MiB is refused" -i "pw
" "$ADMIN" add "$DB" huge --kdf scrypt:1048576:8:1 --password-stdin
expect 3 "scrypt over 512 MiB of work is refused" -i "pw
" "$ADMIN" passwd "$DB" bob --kdf scrypt:65536:8:9 --password-stdin
expect 2 "--force is not an option of list" "$ADMIN" list "$DB" --force
expect 0 "--force stores a kdf above the ceilings" -i "pw
" "$ADMIN" add "$DB" huge --kdf sha256-chain:20000001 --force --password-stdin
expect 1 "check never runs it" -i "pw
" "$ADMIN" check "$DB" huge --password-stdin
check "and names it" err_has "stored kdf sha256-chain:20000001 is above"
"$ADMIN" del "$DB" huge >/dev/null
for cp in '\342\200\256' '\342\200\213' '\342\201\246' '\357\273\277' \
    '\302\255' '\330\234'; do
    name=$(printf "ali${cp}ce")
    expect 3 "add refuses a name with a bidi or invisible character" -i "pw
" "$ADMIN" add "$DB" "$name" --kdf "$FAST" --password-stdin
done
check "and says why" err_has "bidirectional control or an invisible"
sqlite3 "$DB" "INSERT INTO hsc_users SELECT 'evil' || char(8238) || 'gnp', \
    salt, kdf, authenticator, groups, disabled, revoked_before, created, \
    updated, gen, passkey_seals FROM hsc_users WHERE username = 'bob'"
expect 0 "list with such a name stored by other means" "$ADMIN" list "$DB"
check "shows it escaped" grep -q '^evil\\u{202E}gnp	' "$T/out"
check "and never raw" sh -c "! grep -q \"$(printf '\342\200\256')\" '$T/out'"
sqlite3 "$DB" "DELETE FROM hsc_users WHERE username LIKE 'evil%'"
for c in del disable enable revoke; do
    expect 3 "$c on an unknown user" "$ADMIN" $c "$DB" nobody
    check "$c says no such user" err_has "nobody: no such user"
done
expect 3 "passwd on an unknown user" -i "x
" "$ADMIN" passwd "$DB" nobody --kdf "$FAST" --password-stdin
salt0=$(sqlite3 "$DB" "SELECT hex(salt) FROM hsc_users WHERE username='bob'")
expect 0 "passwd" -i "new-bob
" "$ADMIN" passwd "$DB" bob --kdf "$FAST" --password-stdin --force
check "a new salt" test "$(sqlite3 "$DB" \
    "SELECT hex(salt) FROM hsc_users WHERE username='bob'")" != "$salt0"
check "and the new kdf" test "$(sqlite3 "$DB" \
    "SELECT kdf FROM hsc_users WHERE username='bob'")" = "$FAST"
expect 1 "the old password fails" -i "pw-bob
" "$ADMIN" check "$DB" bob --password-stdin
expect 0 "the new one works" -i "new-bob
" "$ADMIN" check "$DB" bob --password-stdin
expect 0 "del" "$ADMIN" del "$DB" carol
expect 3 "del twice" "$ADMIN" del "$DB" carol
expect 0 "list after del" "$ADMIN" list "$DB"
check "two users left" test "$(wc -l <"$T/out")" -eq 2

# --- a reader that may not write ------------------------------------------
# httpd's children: the file and its -wal/-shm readable, the directory not
# writable. As root, become nobody; otherwise take the write bits away.
mkdir "$T/ro"
chmod 755 "$T/ro"
"$ADMIN" init "$T/ro/u.db" >/dev/null
run -i "pw
" "$ADMIN" add "$T/ro/u.db" ro --kdf "$FAST" --password-stdin --force
if [ "$(id -u)" = 0 ]; then
    chmod 644 "$T/ro/u.db" "$T/ro/u.db-wal" "$T/ro/u.db-shm"
    as_reader="runuser -u nobody --"
else
    chmod 444 "$T/ro/u.db" "$T/ro/u.db-wal" "$T/ro/u.db-shm"
    chmod 555 "$T/ro"
    as_reader=""
fi
expect 0 "a reader without write access can list" \
    $as_reader "$ADMIN" list "$T/ro/u.db"
check "and sees the user" out_has "^ro	"
expect 0 "and check a password" -i "pw
" $as_reader "$ADMIN" check "$T/ro/u.db" ro --password-stdin
expect 4 "but not change anything" $as_reader "$ADMIN" disable "$T/ro/u.db" ro
check "says read-only" err_has "read-only"
chmod 755 "$T/ro"
rm -f "$T/ro/u.db-wal" "$T/ro/u.db-shm"
[ -n "$as_reader" ] || chmod 555 "$T/ro"
expect 4 "without its -wal/-shm files such a reader is refused" \
    $as_reader "$ADMIN" list "$T/ro/u.db"
check "with a message that says what to do" err_has "directory writable"
chmod 755 "$T/ro"

# --- keygen -----------------------------------------------------------------
expect 0 "keygen creates a key file (umask 000)" \
    sh -c "umask 000; exec \"$ADMIN\" keygen \"$KEYS\" --kid t1"
check "mode 0600" test "$(stat -c %a "$KEYS")" = 600
check "one key line, kid t1" test "$(awk '{print $1}' "$KEYS")" = t1
check "the secret is 43 base64url characters" \
    test "$(awk '{print length($2)}' "$KEYS")" = 43
check "the secret is not printed" sh -c "! grep -qF \"$(awk '{print $2}' \
    "$KEYS")\" \"$T/out\""
expect 0 "keygen under umask 077" \
    sh -c "umask 077; exec \"$ADMIN\" keygen \"$T/other.keys\""
check "mode 0600 there too" test "$(stat -c %a "$T/other.keys")" = 600
check "a generated kid" grep -q '^k[0-9]\{8\}-[A-Za-z0-9]\{6\} ' "$T/other.keys"
t1=$(key_hex "$KEYS" t1)
# A header comment and a comment between keys must survive rotation.
{ echo "# mod_hsc keys: first signs, all verify"; cat "$KEYS"; \
  echo "# end"; } >"$T/k.tmp"
cat "$T/k.tmp" >"$KEYS"
rm "$T/k.tmp"
ino=$(stat -c %i "$KEYS")
expect 0 "keygen on an existing file rotates" "$ADMIN" keygen "$KEYS" --kid t2
check "the new key is first" \
    test "$(grep -v '^#' "$KEYS" | awk '{print $1}' | tr '\n' ' ')" = "t2 t1 "
check "the header comment stays on top" \
    test "$(head -1 "$KEYS")" = "# mod_hsc keys: first signs, all verify"
check "the trailing comment stays" test "$(tail -1 "$KEYS")" = "# end"
check "the old secret is kept" test "$(key_hex "$KEYS" t1)" = "$t1"
check "still mode 0600" test "$(stat -c %a "$KEYS")" = 600
check "replaced by rename (a new inode)" test "$(stat -c %i "$KEYS")" != "$ino"
check "no temporary file left" \
    test "$(ls "$T" | grep -c '^hsc.keys.')" -eq 0
cp "$KEYS" "$T/before"
expect 3 "a duplicate kid" "$ADMIN" keygen "$KEYS" --kid t1
check "says so" err_has "key id t1 is already in the file"
check "the file is unchanged" cmp -s "$KEYS" "$T/before"
expect 3 "an invalid kid" "$ADMIN" keygen "$KEYS" --kid "bad kid"
expect 3 "a kid over 32 characters" \
    "$ADMIN" keygen "$KEYS" --kid abcdefghijklmnopqrstuvwxyz0123456
check "the file is unchanged" cmp -s "$KEYS" "$T/before"
printf 'broken line\n' >"$T/broken.keys"
chmod 600 "$T/broken.keys"
expect 4 "a key file that does not load is not rotated" \
    "$ADMIN" keygen "$T/broken.keys"
check "it is left as it was" test "$(cat "$T/broken.keys")" = "broken line"
ln -s "$KEYS" "$T/link.keys"
expect 4 "a symbolic link is not rotated" "$ADMIN" keygen "$T/link.keys"
check "the target is unchanged" cmp -s "$KEYS" "$T/before"

# Rotation on several nodes: stage verify-only, then sign, then retire.
cp "$T/before" "$KEYS"
kids() { grep -v '^#' "$KEYS" | awk '{print $1}' | tr '\n' ' '; }
expect 0 "keygen --verify-only stages a key" \
    "$ADMIN" keygen "$KEYS" --kid t3 --verify-only
check "it goes last: t2 still signs" test "$(kids)" = "t2 t1 t3 "
check "and says so" out_has "t3 staged, verify-only (t2 still signs)"
check "the comments stay" test "$(head -1 "$KEYS")" = \
    "# mod_hsc keys: first signs, all verify"
t3=$(key_hex "$KEYS" t3)
expect 0 "keygen --sign moves a staged key first" "$ADMIN" keygen "$KEYS" --sign t3
check "t3 signs, the others verify" test "$(kids)" = "t3 t2 t1 "
check "its secret is unchanged" test "$(key_hex "$KEYS" t3)" = "$t3"
check "still mode 0600" test "$(stat -c %a "$KEYS")" = 600
expect 3 "--retire of the signing key is refused" \
    "$ADMIN" keygen "$KEYS" --retire t3
check "says why" err_has "t3 is the signing key"
expect 0 "keygen --retire removes an old key" "$ADMIN" keygen "$KEYS" --retire t1
check "t1 is gone, the rest kept" test "$(kids)" = "t3 t2 "
check "the secrets kept are unchanged" test "$(key_hex "$KEYS" t3)" = "$t3"
expect 3 "--retire of a key that is not there" \
    "$ADMIN" keygen "$KEYS" --retire t1
expect 3 "--sign of a key that is not there" "$ADMIN" keygen "$KEYS" --sign t9
expect 2 "--sign takes no other option" \
    "$ADMIN" keygen "$KEYS" --sign t2 --verify-only
# Concurrent keygen runs: without a lock 12 runs lost 3 to 6 keys. Each
# run locks the file, so all twelve new keys are there.
cp "$T/before" "$T/race.keys"
i=0
while [ $i -lt 12 ]; do
    "$ADMIN" keygen "$T/race.keys" --kid "r$i" >/dev/null 2>"$T/race.$i.err" &
    i=$((i + 1))
done
wait
race_kids=$(awk '$1 ~ /^r[0-9]+$/ {print $1}' "$T/race.keys" | sort | tr '\n' ' ')
check "12 keygen runs at once keep every key (flock on the file)" \
    test "$race_kids" = "r0 r1 r10 r11 r2 r3 r4 r5 r6 r7 r8 r9 "
check "... and the two keys it had before, nothing else" test \
    "$(awk '$1 !~ /^#/ && NF == 2 {n++} END {print n}' "$T/race.keys")" = 14
cp "$T/before" "$KEYS" # t2 signs, t1 verifies: what the tests below use

# --- inspect ----------------------------------------------------------------
# The minter against the spec's vector first.
vec=1.k1.YWxpY2U.1800000000.1800003600.16303K-HVvQRSEtSJNIE6iWWZlOEW9iqYKiqIGCXcaw.2_QkRzzF1Zcex8cpMCFkBSfIWWiVK1a_YaKgpiadUKI
vsecret=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
vxn=d7adf4dcaf8756f411484b5224d204ea25966653845bd8aa60a8aa20609771ac
check "the shell minter reproduces the vector" test \
    "$(mint $vsecret k1 alice 1800000000 1800003600 $vxn '' '')" = "$vec"
printf 'k1 %s\n' "$(unhex $vsecret | b64url)" >"$T/vec.keys"
chmod 600 "$T/vec.keys"
expect 0 "inspect accepts the vector at iat+1" \
    "$ADMIN" inspect --keys "$T/vec.keys" --now 1800000001 "$vec"
check "decodes the user" out_has "^user    alice$"
check "iat as a UTC date" out_has "1800000000 2027-01-15T08:00:00Z"
check "exp as a UTC date" out_has "1800003600 2027-01-15T09:00:00Z"
check "steps 1-4 pass" test "$(grep -c '^[1-4] .* pass' "$T/out")" -eq 4
check "steps 5-6 not checked without --db" \
    test "$(grep -c '^[56] .* not checked' "$T/out")" -eq 2
expect 1 "inspect: the vector at exp" \
    "$ADMIN" inspect --keys "$T/vec.keys" --now 1800003600 "$vec"
check "time fails: expired" out_has "^4 time   fail (expired"
expect 1 "inspect: past the max age" "$ADMIN" inspect --keys "$T/vec.keys" \
    --now 1800000100 --max-age 60 "$vec"
check "time fails: maximum age" out_has "maximum age"

# A real cookie for alice: x_n from her salt in the database.
salt=$(sqlite3 "$DB" "SELECT hex(salt) FROM hsc_users WHERE username='alice'")
xn=$(scrypt_xn "s3cret pass" "$salt" 1024 8 1)
check "openssl computed an x_n" test ${#xn} -eq 64
iat=$(( $(date +%s) - 10 ))
exp=$((iat + 600))
cookie=$(mint "$t1" t1 alice $iat $exp "$xn" "" "")
auth=$(unhex "$xn" | b64url)
macf=${cookie##*.}
expect 0 "inspect a cookie signed with the old key, with --db" \
    "$ADMIN" inspect --keys "$KEYS" --db "$DB" "$cookie"
check "all six steps pass" test "$(grep -c '^[1-6] .* pass' "$T/out")" -eq 6
check "verdict valid" out_has "^verdict: valid$"
check "never prints the auth field" sh -c "! grep -qF -- '$auth' '$T/out'"
check "never prints the mac" sh -c "! grep -qF -- '$macf' '$T/out'"
check "never prints the cookie" sh -c "! grep -qF -- '$cookie' '$T/out'"
expect 0 "the cookie on stdin" -i "$cookie
" "$ADMIN" inspect --keys "$KEYS" --db "$DB" -
expect 1 "another scope" \
    "$ADMIN" inspect --keys "$KEYS" --db "$DB" --scope other "$cookie"
check "the mac fails" out_has "^3 mac    fail"
check "and the rest is still explained" out_has "^6 auth   pass"
check "verdict refused: bad mac" out_has "^verdict: refused (bad mac)"
bound=$(mint "$t1" t1 alice $iat $exp "$xn" "app1" "127.0.0.1")
expect 0 "scope and address bound" "$ADMIN" inspect --keys "$KEYS" \
    --db "$DB" --scope app1 --address 127.0.0.1 "$bound"
expect 1 "from another address" "$ADMIN" inspect --keys "$KEYS" \
    --db "$DB" --scope app1 --address ::1 "$bound"
expect 1 "a key the file does not have" "$ADMIN" inspect --keys "$T/vec.keys" \
    --db "$DB" "$cookie"
check "the key fails" out_has "^2 key    fail (no key t1"
check "the mac is not checked" out_has "^3 mac    not checked"
expect 1 "a cookie from the future" "$ADMIN" inspect --keys "$KEYS" \
    --db "$DB" --now $((iat - 3600)) "$cookie"
check "time fails" out_has "^4 time   fail (issued in the future"
wrong=$(mint "$t1" t1 alice $iat $exp "$(scrypt_xn wrong "$salt" 1024 8 1)" \
    "" "")
expect 1 "a validly signed cookie with a wrong x_n" \
    "$ADMIN" inspect --keys "$KEYS" --db "$DB" "$wrong"
check "passes the mac" out_has "^3 mac    pass"
check "fails the hardening step" out_has "^6 auth   fail"
ghost=$(mint "$t1" t1 ghost $iat $exp "$xn" "" "")
expect 1 "a user that does not exist" \
    "$ADMIN" inspect --keys "$KEYS" --db "$DB" "$ghost"
check "the user fails" out_has "^5 user   fail (no such user)"
expect 0 "without --db steps 1-4 decide" "$ADMIN" inspect --keys "$KEYS" \
    "$ghost"
check "and says so" out_has "no --db"
expect 1 "garbage" "$ADMIN" inspect --keys "$KEYS" "not.a.cookie"
check "syntax fails with the field count" out_has "^1 syntax fail (3 fields"
expect 1 "a value over 4096 bytes" "$ADMIN" inspect --keys "$KEYS" \
    "$cookie$(printf '%04100d' 0)"
check "syntax fails: too long" out_has "^1 syntax fail (over 4096 bytes)"
expect 1 "a spliced expiry" "$ADMIN" inspect --keys "$KEYS" \
    "$(echo "$cookie" | sed "s/\.$exp\./.${exp}0./")"
check "fails the mac" out_has "^3 mac    fail"
expect 4 "a missing key file" "$ADMIN" inspect --keys "$T/none.keys" "$cookie"
expect 4 "a foreign --db" "$ADMIN" inspect --keys "$KEYS" \
    --db "$T/foreign.db" "$cookie"
"$ADMIN" disable "$DB" alice >/dev/null
expect 1 "after disable" "$ADMIN" inspect --keys "$KEYS" --db "$DB" "$cookie"
check "the user fails: disabled" out_has "^5 user   fail (user disabled)"
"$ADMIN" enable "$DB" alice >/dev/null
sleep 1
"$ADMIN" revoke "$DB" alice >/dev/null
expect 1 "after revoke" "$ADMIN" inspect --keys "$KEYS" --db "$DB" "$cookie"
check "the user fails: revoked" out_has "^5 user   fail (revoked"
check "verdict: revoked" out_has "^verdict: refused (revoked)"
fresh=$(mint "$t1" t1 alice $(( $(date +%s) + 1 )) $exp "$xn" "" "")
expect 0 "a login after the revocation" \
    "$ADMIN" inspect --keys "$KEYS" --db "$DB" "$fresh"
expect 0 "passwd alice" -i "changed
" "$ADMIN" passwd "$DB" alice --kdf "$FAST" --password-stdin --force
expect 1 "after a password change" \
    "$ADMIN" inspect --keys "$KEYS" --db "$DB" "$fresh"
check "the hardening step fails" out_has "^6 auth   fail"

# --- second factors ----------------------------------------------------------
expect 2 "totp enrol without --keys" "$ADMIN" totp enrol "$DB" alice
expect 2 "totp, neither enrol nor remove" "$ADMIN" totp list "$DB" alice
expect 3 "totp enrol of nobody" "$ADMIN" totp enrol "$DB" nobody --keys "$KEYS"
check "says so" err_has "nobody: no such user"
expect 0 "totp enrol" "$ADMIN" totp enrol "$DB" alice --keys "$KEYS" \
    --issuer "A & B"
check "the URI alone on standard output" \
    out_has "^otpauth://totp/A%20%26%20B:alice?secret=[A-Z2-7]\{32\}&"
secret_hex=$(sed -n 's/.*secret=\([A-Z2-7]*\)&.*/\1/p' "$T/out" |
    base32 -d | od -An -tx1 | tr -d ' \n' | tr a-f A-F)
check "the secret decodes to 20 bytes" test "${#secret_hex}" = 40
check "and is not stored in plain text" sh -c "! sqlite3 '$DB' \
    'SELECT hex(sealed) FROM hsc_totp' | grep -q '$secret_hex'"
check "no QR code when standard output is not a terminal" \
    test "$(wc -l <"$T/out")" = 1
# On a terminal (script(1) gives it one), the QR code follows the URI:
# half-block characters, the light quiet zone first.
script -qec "'$ADMIN' totp enrol '$DB' alice --keys '$KEYS'" /dev/null \
    >"$T/tty" 2>&1
check "on a terminal: the URI, then the QR code" \
    sh -c "grep -q '^otpauth://' '$T/tty' && grep -q '$(printf '\342\226\210\342\226\210\342\226\210\342\226\210')' '$T/tty' && grep -q '$(printf '\342\226\204')' '$T/tty'"
expect 0 "show" "$ADMIN" show "$DB" alice
check "TOTP on" out_has "^totp: yes (SHA1, 6 digits, 30 s)"
expect 3 "recovery-codes --count 0" "$ADMIN" recovery-codes "$DB" alice --count 0
expect 3 "recovery-codes --count 51" "$ADMIN" recovery-codes "$DB" alice \
    --count 51
expect 0 "recovery-codes" "$ADMIN" recovery-codes "$DB" alice
check "ten codes, one a line" \
    test "$(grep -c '^[0-9a-hjkmnp-tv-z]\{4\}-[0-9a-hjkmnp-tv-z]\{4\}-[0-9a-hjkmnp-tv-z]\{4\}$' "$T/out")" = 10
check "ten hashes stored, no code" \
    test "$(sqlite3 "$DB" "SELECT count(*) FROM hsc_recovery WHERE length(code_hash) = 32")" = 10
# Key rotation: reseal under the new signing key; a key file that lacks
# the sealing key opens nothing and says whose secret it left.
expect 2 "totp reseal without --keys" "$ADMIN" totp reseal "$DB"
"$ADMIN" keygen "$KEYS" --kid t9 >/dev/null
expect 0 "totp reseal after a rotation" "$ADMIN" totp reseal "$DB" \
    --keys "$KEYS"
check "one secret, under the new key" \
    out_has "^1 TOTP secrets sealed under key t9$"
check "its bytes name the new key" test "$(sqlite3 "$DB" \
    "SELECT hex(substr(sealed, 1, 3)) FROM hsc_totp")" = 027439
expect 1 "reseal with a key file that cannot open it" \
    "$ADMIN" totp reseal "$DB" --keys "$T/other.keys"
check "names the user" err_has "alice: the TOTP secret does not open"
check "and leaves it" test "$(sqlite3 "$DB" \
    "SELECT hex(substr(sealed, 1, 3)) FROM hsc_totp")" = 027439
expect 0 "totp remove" "$ADMIN" totp remove "$DB" alice
expect 3 "totp remove again" "$ADMIN" totp remove "$DB" alice
check "says there is none" err_has "no TOTP enrolled"
# --- who runs which command (docs/hsc-admin.md) ------------------------------
# The key file is root's (mode 0600): the server's user cannot enrol a TOTP.
# Root can, on the server's database, which keeps every file the server's
# (SQLite gives root's -wal/-shm to the file's owner; -state likewise).
# Only root can give a file to another user, so only root can check this.
if [ "$(id -u)" = 0 ]; then
    mkdir "$T/own" && chown nobody "$T/own" && chmod 700 "$T/own"
    runuser -u nobody -- "$ADMIN" init "$T/own/u.db" >/dev/null
    run -i "pw
" runuser -u nobody -- "$ADMIN" add "$T/own/u.db" bo --kdf "$FAST" \
        --password-stdin --force
    expect 4 "the server's user cannot totp enrol: the key file is root's" \
        runuser -u nobody -- "$ADMIN" totp enrol "$T/own/u.db" bo --keys "$KEYS"
    expect 0 "root can, on the server's database" \
        "$ADMIN" totp enrol "$T/own/u.db" bo --keys "$KEYS"
    check "which leaves every file of the database the server's" \
        test -z "$(find "$T/own" ! -user nobody)"
    expect 0 "and the server's user still writes it" \
        runuser -u nobody -- "$ADMIN" totp remove "$T/own/u.db" bo
else
    for d in "totp enrol as the server's user" "totp enrol as root" \
        "the files' owner" "the server's user writes"; do
        n=$((n + 1)); echo "ok $n # SKIP $d: needs root (chown to nobody)"
    done
fi
# --- app passwords (tokens) ---------------------------------------------------
# Their own database, so that the users and rows they add disturb nothing
# above. The token's hash is recomputed here from the printed text with
# python3 (base32, SHA-256), not with the C code under test.
K="$T/tokens.db"
"$ADMIN" init "$K" >/dev/null
for u in tina tom; do
    run -i "pw
" "$ADMIN" add "$K" $u --kdf "$FAST" --password-stdin --force
done
TOKEN_RE='^hsc_[a-z2-7]\{16\}_[a-z2-7]\{52\}_[0-9a-f]\{8\}$'
# token_sha256 PART: SHA-256 (hex) of the base32-decoded PART (lower case,
# unpadded); token_check TEXT: the check digits TEXT should end with.
token_sha256() {
    python3 -c 'import base64, hashlib, sys
s = sys.argv[1].upper()
print(hashlib.sha256(base64.b32decode(s + "=" * (-len(s) % 8))).hexdigest())' "$1"
}
token_check() {
    python3 -c 'import hashlib, sys
print(hashlib.sha256(sys.argv[1].encode()).hexdigest()[:8])' "$1"
}
tq() { sqlite3 "$K" "$1"; }

expect 2 "token without add, list or revoke" "$ADMIN" token frob "$K"
check "says which" err_has "token: add, list or revoke"
expect 2 "token add without --name" "$ADMIN" token add "$K" tina
expect 2 "token list with --name" "$ADMIN" token list "$K" --name x
expect 2 "token add --all" "$ADMIN" token add "$K" tina --name x --all
expect 2 "token add --expires 30s (under a minute)" \
    "$ADMIN" token add "$K" tina --name x --expires 30s
expect 2 "token add --expires of no duration" \
    "$ADMIN" token add "$K" tina --name x --expires tomorrow
check "says what it takes" err_has "never, or a duration"
expect 3 "token add for an unknown user" \
    "$ADMIN" token add "$K" nobody --name x
check "says no such user" err_has "nobody: no such user"
check "in one line" err_is_one_line
check "and prints no token" test ! -s "$T/out"
expect 3 "a name with a leading space" "$ADMIN" token add "$K" tina --name " x"
check "says invalid token name" err_has "invalid token name"
expect 3 "a name of 65 bytes" \
    "$ADMIN" token add "$K" tina --name "$(printf '%065d' 0)"
expect 3 "a name with a control character" \
    "$ADMIN" token add "$K" tina --name "$(printf 'a\tb')"
expect 3 "a scope in capitals" \
    "$ADMIN" token add "$K" tina --name x --scopes CalDAV
check "names the scopes" err_has 'invalid scopes "CalDAV"'
check "in one line" err_is_one_line
expect 3 "a scope listed twice" \
    "$ADMIN" token add "$K" tina --name x --scopes git,git
expect 3 "an empty scope" "$ADMIN" token add "$K" tina --name x --scopes "a,,b"
expect 3 "a scope of 33 characters" "$ADMIN" token add "$K" tina --name x \
    --scopes "$(printf '%033d' 0)"
check "none of the refused tokens was stored" \
    test "$(tq 'SELECT count(*) FROM hsc_tokens')" = 0

expect 0 "token add" "$ADMIN" token add "$K" tina --name "laptop calendar" \
    --scopes caldav,git --audit-log "$T/tokens-audit.log"
check "standard output is one line" test "$(wc -l <"$T/out")" -eq 1
check "the token alone, hsc_<id>_<secret>_<check>" grep -q "$TOKEN_RE" "$T/out"
tok=$(cat "$T/out")
tid=$(echo "$tok" | cut -d_ -f2)
tsec=$(echo "$tok" | cut -d_ -f3)
check "its check digits are SHA-256 of the rest (computed here)" \
    test "${tok##*_}" = "$(token_check "${tok%_*}")"
check "standard error says to store it now" \
    err_has "store it now: it cannot be shown again"
check "and names its id, scopes and expiry" \
    err_has "tina: token $tid \"laptop calendar\", scopes caldav,git, expires never"
check "standard error never holds the secret" sh -c "! grep -q '$tsec' '$T/err'"
check "one row, its id the token's" \
    test "$(tq 'SELECT group_concat(id) FROM hsc_tokens')" = "$tid"
check "the row: owner, name, scopes, no expiry, not revoked" \
    test "$(tq "SELECT username || '|' || name || '|' || scopes || '|' || \
        expires || '|' || revoked FROM hsc_tokens")" = \
        "tina|laptop calendar|caldav,git|0|0"
check "the stored hash is 32 bytes" \
    test "$(tq 'SELECT length(secret_hash) FROM hsc_tokens')" = 32
check "and is SHA-256 of the base32-decoded secret (computed here)" \
    test "$(tq 'SELECT lower(hex(secret_hash)) FROM hsc_tokens')" = \
        "$(token_sha256 "$tsec")"
check "no column holds the secret's text" \
    test "$(tq "SELECT count(*) FROM hsc_tokens WHERE instr(id || username || \
        name || scopes || created || expires || revoked || \
        CAST(secret_hash AS TEXT) || hex(secret_hash), '$tsec') > 0 \
        OR instr(lower(hex(secret_hash)), lower(hex('$tsec'))) > 0")" = 0
check "nor does any byte of the file or its WAL" \
    sh -c "! cat '$K' '$K-wal' 2>/dev/null | grep -aq '$tsec'"
check "the audit line says token-add, tina, success" \
    grep -q '"outcome":"success","user":"tina","action":"token-add"' \
    "$T/tokens-audit.log"
th=$(tq 'SELECT lower(hex(secret_hash)) FROM hsc_tokens')

expect 3 "a second live token of that name" \
    "$ADMIN" token add "$K" tina --name "laptop calendar"
check "is refused, naming it" err_has 'tina: a live token is named "laptop calendar"'
check "in one line" err_is_one_line
check "and prints no token" test ! -s "$T/out"
check "still one row" test "$(tq 'SELECT count(*) FROM hsc_tokens')" = 1
expect 0 "another user may use that name" \
    "$ADMIN" token add "$K" tom --name "laptop calendar"
expect 0 "token add --expires 90d" "$ADMIN" token add "$K" tina --name ci \
    --expires 90d
check "expires 90 days after it was made" test "$(tq "SELECT expires - created \
    FROM hsc_tokens WHERE name = 'ci'")" = 7776000
check "and says when" err_has "expires 20[0-9-]*T[0-9:]*Z"
ci=$(cut -d_ -f2 "$T/out")
expect 0 "token add --expires never" "$ADMIN" token add "$K" tina --name old \
    --expires never
old=$(cut -d_ -f2 "$T/out")
# Expired: its end moved into the past, as time would.
tq "UPDATE hsc_tokens SET expires = created - 1 WHERE id = '$old'"

expect 0 "token list" "$ADMIN" token list "$K"
check "one line a token" test "$(wc -l <"$T/out")" -eq 4
check "seven tab-separated fields" \
    test "$(awk -F'\t' 'NF != 7' "$T/out" | wc -l)" -eq 0
check "id, user, name, scopes, created, expires never, live" grep -q \
    "^$tid	tina	laptop calendar	caldav,git	20[0-9-]*T[0-9:]*Z	never	live$" \
    "$T/out"
check "an expired token shows as expired" \
    grep -q "^$old	tina	old	-	.*	expired$" "$T/out"
check "a token with an expiry shows its date" \
    grep -q "^$ci	tina	ci	-	[^	]*	20[0-9-]*T[0-9:]*Z	live$" "$T/out"
check "never the secret" sh -c "! grep -q '$tsec' '$T/out'"
check "never the hash" sh -c "! grep -qi '$th' '$T/out'"
# The last use, from the activity store httpd writes (HSCActivityDB): a
# row as hsc_activity_touch leaves it.
sqlite3 "$T/act.db" "CREATE TABLE hsc_token_activity (id TEXT PRIMARY KEY,
    last_at INTEGER NOT NULL, last_addr TEXT NOT NULL);
    INSERT INTO hsc_token_activity VALUES ('$tid', 1765000000, '192.0.2.7');"
expect 0 "token list --activity" "$ADMIN" token list "$K" tina --activity "$T/act.db"
check "eight fields with --activity" \
    test "$(awk -F'\t' 'NF != 8' "$T/out" | wc -l)" -eq 0
check "the last use: its time and address" \
    grep -q "^$tid	.*	live	2025-12-06T05:46:40Z 192.0.2.7$" "$T/out"
check "a token never used says so" grep -q "^$ci	.*	never used$" "$T/out"
expect 0 "token list --activity of a file not made yet" \
    "$ADMIN" token list "$K" tina --activity "$T/no-activity-yet.db"
check "every token never used" \
    test "$(grep -c 'never used$' "$T/out")" -eq "$(wc -l <"$T/out")"
check "and the file is not made by a reader" test ! -e "$T/no-activity-yet.db"
printf 'not sqlite' >"$T/act-bad.db"
expect 4 "token list --activity of a file that is not one" \
    "$ADMIN" token list "$K" tina --activity "$T/act-bad.db"
expect 0 "token list DB USER" "$ADMIN" token list "$K" tom
check "only that user's" test "$(cut -f2 "$T/out" | sort -u)" = tom
expect 3 "token list of an unknown user" "$ADMIN" token list "$K" nobody
check "says no such user" err_has "nobody: no such user"
expect 0 "token list --audit-log changes nothing" \
    "$ADMIN" token list "$K" --audit-log "$T/tokens-audit.log"
check "and writes no audit line" test "$(wc -l <"$T/tokens-audit.log")" -eq 1

expect 0 "show" "$ADMIN" show "$K" tina
check "counts the live tokens" out_has "^tokens: 2 live, 3 in all$"
check "and lists them" test "$(grep -c '^token: ' "$T/out")" -eq 3
check "with name, scopes, dates and state" out_has \
    "^token: $tid \"laptop calendar\", scopes caldav,git, created 20.*, expires never, live$"
check "show never prints the secret" sh -c "! grep -q '$tsec' '$T/out'"

expect 2 "token revoke without ID or --all" "$ADMIN" token revoke "$K" tina
expect 2 "token revoke with both" "$ADMIN" token revoke "$K" tina "$tid" --all
expect 3 "token revoke of an unknown id" \
    "$ADMIN" token revoke "$K" tina aaaaaaaaaaaaaaaa
check "says there is no such token" err_has "tina: no live token aaaaaaaaaaaaaaaa"
check "in one line" err_is_one_line
expect 3 "token revoke of a malformed id" "$ADMIN" token revoke "$K" tina 'x;y'
expect 3 "token revoke of another user's token" \
    "$ADMIN" token revoke "$K" tom "$tid"
expect 3 "token revoke for an unknown user" \
    "$ADMIN" token revoke "$K" nobody --all
check "says no such user" err_has "nobody: no such user"
check "nothing was revoked" \
    test "$(tq 'SELECT count(*) FROM hsc_tokens WHERE revoked != 0')" = 0
expect 0 "token revoke ID" "$ADMIN" token revoke "$K" tina "$tid" \
    --audit-log "$T/tokens-audit.log"
check "says one was revoked" test "$(cat "$T/out")" = "tina: 1 token revoked"
check "the row is kept, revoked" \
    test "$(tq "SELECT revoked > 0 FROM hsc_tokens WHERE id = '$tid'")" = 1
check "the audit line says token-revoke" \
    grep -q '"user":"tina","action":"token-revoke"' "$T/tokens-audit.log"
expect 3 "token revoke ID again" "$ADMIN" token revoke "$K" tina "$tid"
check "says already revoked" err_has "already revoked"
expect 0 "token list after revoke" "$ADMIN" token list "$K" tina
check "shows it revoked at a date" \
    grep -q "^$tid	tina	.*	revoked at 20[0-9-]*T[0-9:]*Z$" "$T/out"
expect 0 "a revoked token's name is free again" \
    "$ADMIN" token add "$K" tina --name "laptop calendar"
expect 0 "token revoke --all" "$ADMIN" token revoke "$K" tina --all
check "says how many: the three not revoked yet" \
    test "$(cat "$T/out")" = "tina: 3 tokens revoked"
check "none of tina's is left unrevoked" test "$(tq "SELECT count(*) \
    FROM hsc_tokens WHERE username = 'tina' AND revoked = 0")" = 0
check "tom's is untouched" test "$(tq "SELECT count(*) \
    FROM hsc_tokens WHERE username = 'tom' AND revoked = 0")" = 1
expect 0 "token revoke --all again" "$ADMIN" token revoke "$K" tina --all
check "says none" test "$(cat "$T/out")" = "tina: 0 tokens revoked"
expect 0 "show after revoke --all" "$ADMIN" show "$K" tina
check "no live token" out_has "^tokens: 0 live, 4 in all$"

# A reader that may not write (as in "a reader that may not write"
# above): it may list, not add or revoke.
mkdir "$T/tro"
chmod 755 "$T/tro"
cp "$K" "$T/tro/t.db"
if [ "$(id -u)" = 0 ]; then
    chmod 644 "$T/tro/t.db"
    as_reader="runuser -u nobody --"
else
    chmod 444 "$T/tro/t.db"
    as_reader=""
fi
"$ADMIN" list "$T/tro/t.db" >/dev/null # makes its -wal and -shm
chmod 644 "$T/tro/t.db-wal" "$T/tro/t.db-shm"
[ -n "$as_reader" ] || chmod 444 "$T/tro/t.db-wal" "$T/tro/t.db-shm"
[ -n "$as_reader" ] || chmod 555 "$T/tro"
expect 0 "a reader without write access can list tokens" \
    $as_reader "$ADMIN" token list "$T/tro/t.db" tom
check "and sees tom's" out_has "	tom	laptop calendar	"
expect 4 "but not add one" $as_reader "$ADMIN" token add "$T/tro/t.db" tom \
    --name ro
check "says read-only" err_has "read-only"
check "in one line" err_is_one_line
check "and prints no token" test ! -s "$T/out"
expect 4 "nor revoke one" $as_reader "$ADMIN" token revoke "$T/tro/t.db" tom --all
check "says read-only" err_has "read-only"
chmod 755 "$T/tro"

# A file of schema version 4 has no token table: a clear refusal.
cp "$K" "$T/v4.db"
sqlite3 "$T/v4.db" "DROP TRIGGER hsc_users_tokens_go; DROP TABLE hsc_tokens; \
    PRAGMA user_version = 4"
expect 4 "token list on a schema 4 file" "$ADMIN" token list "$T/v4.db"
check "says to run init" err_has "hsc-admin init"
expect 4 "show on a schema 4 file" "$ADMIN" show "$T/v4.db" tom
check "prints the record and factors first" out_has "^recovery codes left: 0$"
check "then says the tokens need init" err_has "tom: tokens: .*hsc-admin init"
expect 4 "on a pgsql: database that does not answer, a clear refusal" \
    "$ADMIN" token list "pgsql:dbname=none host=$T/no-such-socket"
check "naming the connection" err_has "cannot connect to dbname=none"

expect 0 "del tina" "$ADMIN" del "$K" tina
check "deletes her tokens" test "$(tq "SELECT count(*) FROM hsc_tokens \
    WHERE username = 'tina'")" = 0
check "and keeps tom's" test "$(tq "SELECT count(*) FROM hsc_tokens \
    WHERE username = 'tom'")" = 1
expect 3 "token list of the deleted user" "$ADMIN" token list "$K" tina

# --- passkeys: webauthn list|rename|remove|require-seal, show ---------------
# hsc-admin cannot register one (that needs a browser): rows are made here
# as the account page would leave them, the seal column included.
P="$T/passkeys.db"
"$ADMIN" init "$P" >/dev/null
for u in pam pat; do
    run -i "pw
" "$ADMIN" add "$P" $u --kdf "$FAST" --password-stdin --force
done
pq() { sqlite3 "$P" "$1"; }
pq "INSERT INTO hsc_passkey_users VALUES ('pam', zeroblob(32)), \
    ('pat', x'$(printf '01%.0s' $(seq 32))');
INSERT INTO hsc_passkeys (cred_id, username, alg, spki, transports, prf, \
    seal_hash, name, created, uv) VALUES \
    (x'0102fe', 'pam', -7, x'30', 'internal', 1, x'$(printf '5a%.0s' $(seq 32))', 'phone', \
     1700000000, 1), \
    (x'ff', 'pam', -8, x'30', '', 0, NULL, 'key', 1700000100, 0), \
    (x'ee', 'pat', -7, x'30', '', 0, NULL, 'pats', 1700000200, 0);
UPDATE hsc_users SET passkey_seals = x'$(printf '5a%.0s' $(seq 32))' WHERE username = 'pam'"
expect 2 "webauthn without list, rename, remove or require-seal" "$ADMIN" webauthn frob "$P" pam
check "says which" err_has "webauthn: list, rename, remove or require-seal"
expect 0 "webauthn list" "$ADMIN" webauthn list "$P" pam
check "one line a passkey" test "$(wc -l <"$T/out")" -eq 2
check "the id in base64url, name, date, sealed" \
    out_has "^AQL-	phone	2023-11-14T22:13:20Z	sealed	ES256	uv	internal$"
check "an unsealed one" out_has "^_w	key	.*	not sealed	EdDSA	no-uv	-$"
check "never pat's" sh -c "! grep -q pats '$T/out'"
expect 3 "webauthn list of a user who does not exist" "$ADMIN" webauthn list "$P" nobody
expect 0 "show lists the passkeys" "$ADMIN" show "$P" pam
check "with a count" out_has "^passkeys: 2$"
check "name, created, sealed" out_has '^passkey: "phone", created 2023-11-14T22:13:20Z, sealed$'
check "and not sealed" out_has '^passkey: "key", created .*, not sealed$'
# the seal switch: pia has one sealed passkey (rows as the account page
# would leave them); pam has an unsealed one too.
PIA_HEX=$(printf '6B%.0s' $(seq 32))
run -i "pw
" "$ADMIN" add "$P" pia --kdf "$FAST" --password-stdin --force
pq "INSERT INTO hsc_passkeys (cred_id, username, alg, spki, prf, seal_hash, \
    name, created) VALUES (x'aa', 'pia', -7, x'30', 1, x'$PIA_HEX', 'pias', \
    1700000300);
UPDATE hsc_users SET passkey_seals = x'$PIA_HEX' WHERE username = 'pia'"
pia_col() { pq "SELECT quote(passkey_seals) FROM hsc_users WHERE username = 'pia'"; }
expect 3 "webauthn require-seal on while pam has an unsealed passkey" \
    "$ADMIN" webauthn require-seal "$P" pam on
check "says why" err_has "every one is sealed"
check "pam's row is unchanged" test "$(pq "SELECT hex(passkey_seals) \
    FROM hsc_users WHERE username = 'pam'")" = "$(printf '5A%.0s' $(seq 32))"
expect 2 "webauthn require-seal with neither on nor off" \
    "$ADMIN" webauthn require-seal "$P" pia yes
expect 3 "webauthn require-seal of a user who does not exist" \
    "$ADMIN" webauthn require-seal "$P" nobody on
expect 0 "show: the seal is not required yet" "$ADMIN" show "$P" pia
check "says so" out_has "^seal required: no$"
gen0=$(pq "SELECT gen FROM hsc_users WHERE username = 'pia'")
expect 0 "webauthn require-seal on" "$ADMIN" webauthn require-seal "$P" pia on
check "her seal column ends with the block of zeros" \
    test "$(pia_col)" = "X'$PIA_HEX$(printf '00%.0s' $(seq 32))'"
check "and her gen is unchanged (her unsealed cookies fail by themselves)" \
    test "$(pq "SELECT gen FROM hsc_users WHERE username = 'pia'")" = "$gen0"
expect 0 "show" "$ADMIN" show "$P" pia
check "says the seal is required" out_has "^seal required: yes$"
expect 0 "on twice" "$ADMIN" webauthn require-seal "$P" pia on
check "one block" test "$(pia_col)" = "X'$PIA_HEX$(printf '00%.0s' $(seq 32))'"
expect 0 "webauthn require-seal off" "$ADMIN" webauthn require-seal "$P" pia off
check "the column is her seal hash again" test "$(pia_col)" = "X'$PIA_HEX'"
expect 0 "on again" "$ADMIN" webauthn require-seal "$P" pia on
expect 0 "webauthn remove of her last passkey" "$ADMIN" webauthn remove "$P" pia qg
check "turns it off (no column left)" test "$(pia_col)" = NULL
expect 0 "show" "$ADMIN" show "$P" pia
check "says it is not required" out_has "^seal required: no$"
expect 3 "webauthn rename of another user's passkey" \
    "$ADMIN" webauthn rename "$P" pat AQL- mine
check "says so" err_has "no passkey AQL- (unknown, or another user's)"
check "the name is unchanged" test "$(pq "SELECT name FROM hsc_passkeys \
    WHERE cred_id = x'0102fe'")" = phone
expect 3 "webauthn rename to a name with a tab" \
    "$ADMIN" webauthn rename "$P" pam AQL- "$(printf 'a\tb')"
expect 0 "webauthn rename" "$ADMIN" webauthn rename "$P" pam AQL- "old phone"
check "renames it" test "$(pq "SELECT name FROM hsc_passkeys \
    WHERE cred_id = x'0102fe'")" = "old phone"
expect 3 "webauthn remove of an id that is not base64url" \
    "$ADMIN" webauthn remove "$P" pam 'AQ=='
check "says what an id looks like" err_has "not a credential id"
expect 3 "webauthn remove of another user's passkey" \
    "$ADMIN" webauthn remove "$P" pat AQL-
check "leaves it" test "$(pq "SELECT count(*) FROM hsc_passkeys")" = 3
gen0=$(pq "SELECT gen FROM hsc_users WHERE username = 'pam'")
expect 0 "webauthn remove" "$ADMIN" webauthn remove "$P" pam AQL-
check "removes it" test "$(pq "SELECT count(*) FROM hsc_passkeys \
    WHERE username = 'pam'")" = 1
check "its seal hash left pam's row" test "$(pq "SELECT passkey_seals IS NULL \
    FROM hsc_users WHERE username = 'pam'")" = 1
check "and pam's sessions end (gen raised)" test "$(pq "SELECT gen \
    FROM hsc_users WHERE username = 'pam'")" -gt "$gen0"
expect 3 "removing it again" "$ADMIN" webauthn remove "$P" pam AQL-
# One credential id in 64 begins with "-": x'f8aa' is -Ko.
pq "INSERT INTO hsc_passkeys (cred_id, username, alg, spki, name, created) \
    VALUES (x'f8aa', 'pam', -7, x'30', 'dash', 1700000400)"
expect 0 "webauthn list" "$ADMIN" webauthn list "$P" pam
check "prints the id that begins with -" out_has '^-Ko	dash	'
expect 2 "webauthn remove -Ko: read as an option" "$ADMIN" webauthn remove "$P" pam -Ko
check "says it goes after --" err_has 'goes after "--"'
expect 0 "webauthn remove -- -Ko" "$ADMIN" webauthn remove "$P" pam -- -Ko
check "removes it" test "$(pq "SELECT count(*) FROM hsc_passkeys \
    WHERE cred_id = x'f8aa'")" = 0
cp "$P" "$T/v5.db"
sqlite3 "$T/v5.db" "DROP TRIGGER hsc_users_passkeys_go; DROP TABLE hsc_passkeys; \
    DROP TABLE hsc_passkey_users; ALTER TABLE hsc_users DROP COLUMN passkey_seals; \
    PRAGMA user_version = 5"
expect 4 "webauthn list on a schema 5 file" "$ADMIN" webauthn list "$T/v5.db" pam
check "says to run init" err_has "hsc-admin init"
expect 0 "init upgrades it" "$ADMIN" init "$T/v5.db"
check "to version 7" test "$(sqlite3 "$T/v5.db" 'PRAGMA user_version')" = 7
expect 0 "then webauthn list works" "$ADMIN" webauthn list "$T/v5.db" pam
expect 0 "del pam" "$ADMIN" del "$P" pam
check "deletes her passkeys and handle" test "$(pq "SELECT (SELECT count(*) \
    FROM hsc_passkeys WHERE username = 'pam') + (SELECT count(*) \
    FROM hsc_passkey_users WHERE username = 'pam')")" = 0
check "and keeps pat's" test "$(pq "SELECT count(*) FROM hsc_passkeys")" = 1

# (pgsql: works as a file does: test/pgsql/roles.sh.) A database that
# does not answer is a clear refusal, not a crash.
expect 4 "on a pgsql: database that does not answer, a clear refusal" \
    "$ADMIN" recovery-codes "pgsql:dbname=none host=$T/no-such-socket" alice
check "naming the connection" err_has "cannot connect to dbname=none"

echo "1..$n"
[ "$failed" -eq 0 ]
