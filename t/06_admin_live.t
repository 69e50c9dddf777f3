# Changes made with hsc-admin while httpd runs take effect on the next
# request, without a restart: password change, disable/enable, revoke,
# groups.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest qw(GET);
use HSCTest;

plan tests => 24;

ua_plain();
my $db = var_dir() . '/users.db';
my $page = '/private/page.html';

# Password change: the old cookie and the old password stop working.
my $v = cookie_from(login('carol', $PW{carol}));
is(get_with($page, 'hsc', $v)->code, 200, 'carol: cookie works');
my ($rc, $out) = HSCTest::admin_in("carol-pw-2\n", 'passwd', $db, 'carol',
                                   '--kdf', 'sha256-chain:1000',
                                   '--password-stdin', '--force');
is($rc, 0, 'hsc-admin passwd carol') or diag $out;
is(get_with($page, 'hsc', $v)->code, 401,
   'carol: cookie refused after the password change');
is(login('carol', $PW{carol})->code, 401, 'carol: old password refused');
my $res = login('carol', 'carol-pw-2');
is($res->code, 303, 'carol: new password accepted');
is(get_with($page, 'hsc', cookie_from($res))->code, 200,
   'carol: new cookie works');

# Disable, then enable.
$v = cookie_from(login('dave', $PW{dave}));
is(get_with($page, 'hsc', $v)->code, 200, 'dave: cookie works');
($rc, $out) = admin('disable', $db, 'dave');
is($rc, 0, 'hsc-admin disable dave') or diag $out;
is(get_with($page, 'hsc', $v)->code, 401, 'dave: refused once disabled');
is(login('dave', $PW{dave})->code, 401, 'dave: login refused once disabled');
($rc, $out) = admin('enable', $db, 'dave');
is($rc, 0, 'hsc-admin enable dave') or diag $out;
is(get_with($page, 'hsc', $v)->code, 401,
   'dave: an earlier cookie stays refused once enabled (disable revoked it)');
is(get_with($page, 'hsc', cookie_from(login('dave', $PW{dave})))->code, 200,
   'dave: a new login works');

# Revoke: cookies issued before now stop working; a later login works.
$v = cookie_from(login('erin', $PW{erin}));
is(get_with($page, 'hsc', $v)->code, 200, 'erin: cookie works');
sleep 1;
($rc, $out) = admin('revoke', $db, 'erin');
is($rc, 0, 'hsc-admin revoke erin') or diag $out;
is(get_with($page, 'hsc', $v)->code, 401, 'erin: refused once revoked');
sleep 1;
$res = login('erin', $PW{erin});
is(get_with($page, 'hsc', cookie_from($res))->code, 200,
   'erin: a new login works');

# Groups: the next request sees them.
$v = cookie_from(login('bob', $PW{bob}));
is(get_with('/admins/page.html', 'hsc', $v)->code, 403,
   'bob: not in admins');
($rc, $out) = admin('groups', $db, 'bob', 'staff,admins');
is($rc, 0, 'hsc-admin groups bob staff,admins') or diag $out;
is(get_with('/admins/page.html', 'hsc', $v)->code, 200,
   'bob: in admins on the next request');
($rc, $out) = admin('groups', $db, 'bob', 'staff');
is(get_with('/admins/page.html', 'hsc', $v)->code, 403,
   'bob: out of admins again');

# All of the above ran with the validated record cache on (the default):
# the threads said so when they opened their handles (LogLevel hsc:debug).
my $logtext = error_log_text();
like($logtext, qr/HSC008: user database \S+users\.db opened for this thread \(record cache shared by the child's threads\)/,
     'the handles used the shared record cache (HSCUserDBCache default)');
like($logtext, qr/HSC102: user record cache for \S+users\.db: 131072 records shared by this child's threads, at most 2\d\.\d MiB/,
     'each child logged its record cache and its bound at start');
like($logtext, qr/HSC009: SQLite's memory statistics are off/,
     "at startup the module turned SQLite's memory statistics off");
