# Faults while httpd serves, each on its own copy of the user database used
# by its own virtual host (var/faults/NAME/users.db, made per run by
# HSCTest::make_fault_fixtures), so that other files are unaffected:
#   gone     the file deleted, then put back
#   garbage  replaced by garbage (renamed over, and overwritten in place)
#   lock     a long write transaction (BEGIN EXCLUSIVE, WAL mode)
#   xlock    an exclusive lock (locking_mode EXCLUSIVE) held by another
#            program when the server first needs the file
#   perm     made unreadable (chmod 000; the children run as nobody)
# Each time a valid cookie and a login are refused (503 with Retry-After,
# never 200, never 500) with a clear log line, and service comes back by
# itself once the file is good again (polled, not slept: the store looks at
# its file at most once a second). Then a key file that is missing or
# broken when a separate httpd, started by this file, starts or restarts.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest qw(GET);
use File::Temp qw(tempdir);
use IO::Select ();
use IO::Socket::INET ();
use IPC::Open3 qw(open3);
use POSIX ();
use Symbol qw(gensym);
use Time::HiRes ();
use HSCTest;

plan tests => 81;

my $page = '/private/page.html';
my ($uid, $gid) = child_ids();
my @secrets = ($PW{alice});

# A fresh connection per request, so that the requests spread over the
# children and threads (each keeps its own store handle).
ua_plain(keep_alive => 0);

sub get_at
{
    my ($host, $v) = @_;
    return get_with($page, 'hsc', $v, Host => $host);
}

sub login_at
{
    my ($host) = @_;
    return login('alice', $PW{alice}, headers => [Host => $host]);
}

# n requests with the cookie: how many got each status ("200:3 503:5").
sub spread
{
    my ($host, $v, $n) = @_;
    my %c;
    ++$c{ get_at($host, $v)->code } for 1 .. $n;
    return join ' ', map { "$_:$c{$_}" } sort keys %c;
}

# Put the good database back at $db the way an administrator would: a copy
# beside it, renamed over it (one step for readers).
sub restore
{
    my ($db) = @_;
    my $tmp = "$db.new";
    open my $in, '<:raw', fault_good_db() or die $!;
    open my $out, '>:raw', $tmp or die "$tmp: $!";
    print $out do { local $/; <$in> };
    close $out or die "$tmp: $!";
    chmod 0644, $tmp;
    chown $uid, $gid, $tmp;
    rename $tmp, $db or die "rename $tmp: $!";
}

# A refusal of a store fault: 503, Retry-After, no cookie.
sub refused_ok
{
    my ($res, $what) = @_;
    is($res->code, 503, "$what: 503");
    ok(defined $res->header('Retry-After')
       && !defined cookie_from($res), "$what: Retry-After, no cookie");
}

# A cookie from the main server: every host here shares its key and scope.
my $login = login('alice', $PW{alice});
die "alice cannot log in\n" unless $login->code == 303;
my $alice = cookie_from($login);
push @secrets, $alice, (cookie_fields($alice))[-2, -1];

# --- deleted --------------------------------------------------------------
{
    my $host = 'fault-gone.test';
    my $db = fault_db('gone');
    is(spread($host, $alice, 8), '200:8', 'gone: the cookie works first');
    my $off = log_size();
    unlink $db or die "unlink $db: $!";
    my $t0 = Time::HiRes::time();
    my $res = poll_until(5, sub { my $r = get_at($host, $alice);
                                  $r->code == 503 ? $r : undef });
    ok($res, 'gone: the cookie is refused once the file is deleted');
    ok(Time::HiRes::time() - $t0 < 3, 'gone: within a few seconds');
    # Every handle looks at its file at most a second after its last look.
    Time::HiRes::sleep(1.2);
    is(spread($host, $alice, 10), '503:10', 'gone: every request refused');
    refused_ok(get_at($host, $alice), 'gone: the cookie');
    refused_ok(login_at($host), 'gone: a login');
    # A handle that had the file open says HSC012 when it next looks; one
    # that opens it now says HSC006. Which threads served is up to the MPM.
    # (HSC006 names the file, then says why: "database PATH: PATH: no such
    # file".)
    like(log_since($off), qr/HSC012: cookie refused: user store failure: database file replaced, deleted or damaged: \S+gone\S+: no such file|HSC006: cannot open user database \S+gone\S+: \S+gone\S+: no such file/,
         'gone: the log says the file is missing (HSC012 or HSC006)');
    restore($db);
    ok(poll_until(5, sub { get_at($host, $alice)->code == 200 }),
       'gone: the cookie works again once the file is back');
    Time::HiRes::sleep(1.2);
    is(spread($host, $alice, 8), '200:8', 'gone: on every thread');
    is(login_at($host)->code, 303, 'gone: logins work again');
}

# --- garbage ---------------------------------------------------------------
{
    my $host = 'fault-garbage.test';
    my $db = fault_db('garbage');
    is(spread($host, $alice, 8), '200:8', 'garbage: the cookie works first');
    my $off = log_size();
    my $junk = join '', map { chr(($_ * 7 + 3) % 256) } 1 .. 8192;
    spew_junk("$db.junk", $junk);
    rename "$db.junk", $db or die "rename: $!";
    ok(poll_until(5, sub { get_at($host, $alice)->code == 503 }),
       'garbage renamed over the file: the cookie is refused');
    Time::HiRes::sleep(1.2);
    is(spread($host, $alice, 10), '503:10', 'garbage: every request refused');
    refused_ok(get_at($host, $alice), 'garbage: the cookie');
    refused_ok(login_at($host), 'garbage: a login');
    like(log_since($off), qr/HSC0(?:06|12): .*not an hsc user database|HSC0(?:06|12): .*not a database/,
         'garbage: the log says it is not a user database');
    restore($db);
    ok(poll_until(5, sub { get_at($host, $alice)->code == 200 }),
       'garbage: the cookie works again once the file is back');
    Time::HiRes::sleep(1.2);
    is(spread($host, $alice, 8), '200:8', 'garbage: on every thread');
    is(login_at($host)->code, 303, 'garbage: logins work again');

    # Overwritten in place (same inode, e.g. cp over a live database): the
    # open connections cannot see it through SQLite, so each handle's
    # once-a-second check compares the file's size and times and reopens.
    Time::HiRes::sleep(1.2);
    spew_in_place($db, $junk);
    Time::HiRes::sleep(1.2);
    is(spread($host, $alice, 10), '503:10',
       'garbage in place: within a second every request is refused');
    refused_ok(login_at($host), 'garbage in place: a login');
    spew_in_place($db, HSCTest::slurp_raw(fault_good_db()));
    Time::HiRes::sleep(1.2);
    ok(poll_until(5, sub { spread($host, $alice, 8) eq '200:8' }),
       'garbage in place: good bytes back in place, every thread serves');
}

# --- a long write transaction (WAL: readers go on) ------------------------
{
    my $host = 'fault-lock.test';
    my $db = fault_db('lock');
    is(spread($host, $alice, 4), '200:4', 'lock: the cookie works first');
    my $locker = Locker->start($db, 0,
        "UPDATE hsc_users SET disabled = 1 WHERE username = 'alice';");
    ok($locker, 'lock: another program holds BEGIN EXCLUSIVE with a change');
    my $t0 = Time::HiRes::time();
    is(spread($host, $alice, 8), '200:8',
       'lock: readers go on (WAL) and see the last committed state');
    is(login_at($host)->code, 303, 'lock: a login goes on');
    ok(Time::HiRes::time() - $t0 < 5, 'lock: nobody waits for the writer');
    # A write (log out everywhere) waits for the lock, then says it failed.
    my $off = log_size();
    $t0 = Time::HiRes::time();
    my $res = post_form('/logout', 'everywhere=1', Host => $host,
                        Cookie => "hsc=$alice");
    my $took = Time::HiRes::time() - $t0;
    is($res->code, 200, 'lock: logout everywhere while locked: a page, no 500');
    like($res->content, qr/other sessions could not be ended/,
         'lock: which says the other sessions were not ended');
    ok($took < 15, 'lock: the write gives up after its busy timeout, no hang')
        or diag "took $took s";
    like(log_since($off), qr/HSC041: cannot revoke the cookies of user "alice": .*locked/,
         'lock: the log says the database is locked (HSC041)');
    $locker->finish('ROLLBACK;');
    is(spread($host, $alice, 4), '200:4',
       'lock: rolled back: the uncommitted change never took effect');
    $locker = Locker->start($db, 0,
        "UPDATE hsc_users SET disabled = 1 WHERE username = 'alice';");
    $locker->finish('COMMIT;');
    is(get_at($host, $alice)->code, 401,
       'lock: committed: the change is seen at once');
}

# --- an exclusive lock when the server first opens the file ---------------
{
    my $host = 'fault-xlock.test';
    my $db = fault_db('xlock');
    my $locker = Locker->start($db, 1,
        "UPDATE hsc_users SET groups = 'x' WHERE username = 'alice';");
    ok($locker, 'xlock: another program holds an exclusive lock');
    my $off = log_size();
    my $t0 = Time::HiRes::time();
    refused_ok(get_at($host, $alice), 'xlock: the cookie');
    refused_ok(login_at($host), 'xlock: a login');
    is(spread($host, $alice, 6), '503:6', 'xlock: every request refused');
    ok(Time::HiRes::time() - $t0 < 10, 'xlock: promptly (no long waits)');
    like(log_since($off), qr/HSC006: cannot open user database \S+xlock\S+: .*locked/,
         'xlock: the log says the database is locked (HSC006)');
    $locker->finish('ROLLBACK;');
    ok(poll_until(5, sub { get_at($host, $alice)->code == 200 }),
       'xlock: the cookie works once the lock is gone');
    is(spread($host, $alice, 6), '200:6', 'xlock: on every thread');
    is(login_at($host)->code, 303, 'xlock: logins work again');
}

# --- unreadable ------------------------------------------------------------
{
    my $host = 'fault-perm.test';
    my $db = fault_db('perm');
    # Never opened by the children yet: every handle is new.
    chmod 0000, $db or die "chmod $db: $!";
    my $off = log_size();
    refused_ok(get_at($host, $alice), 'perm: the cookie');
    refused_ok(login_at($host), 'perm: a login');
    is(spread($host, $alice, 6), '503:6', 'perm: every request refused');
    like(log_since($off), qr/HSC006: cannot open user database \S+perm\S+: /,
         'perm: the log says the database cannot be opened (HSC006)');
    chmod 0644, $db or die "chmod $db: $!";
    ok(poll_until(5, sub { get_at($host, $alice)->code == 200 }),
       'perm: the cookie works once the file is readable');
    is(spread($host, $alice, 6), '200:6', 'perm: on every thread');
    is(login_at($host)->code, 303, 'perm: logins work again');
    # Made unreadable while open: a handle keeps its open descriptor (Unix
    # permissions are checked at open), a new one is refused.
    chmod 0000, $db or die "chmod $db: $!";
    my @codes = map { get_at($host, $alice)->code } 1 .. 8;
    is(scalar(grep { $_ != 200 && $_ != 503 } @codes), 0,
       'perm while open: only 200 (open handles) or 503') or diag "@codes";
    chmod 0644, $db;
    ok(poll_until(5, sub { spread($host, $alice, 6) eq '200:6' }),
       'perm: readable again, every thread serves');
}

# Nothing of the faults reached the other hosts.
is(get_with($page, 'hsc', $alice)->code, 200,
   'the main server was not affected');
my $all = error_log_text();
my @leaked = grep { index($all, $_) >= 0 } @secrets;
is(scalar @leaked, 0, 'no password, cookie, x_n or MAC in the log');

# --- the key file at start and restart: a separate httpd --------------------
{
    my $httpd = Apache::Test::vars('httpd');
    my $modules = Apache::Test::vars('httpd_conf');
    my $module = $ENV{HSC_MODULE} || "$FindBin::Bin/../.libs/mod_hsc.so";
    my $dir = tempdir(CLEANUP => 1);
    chmod 0755, $dir;
    mkdir "$dir/htdocs";
    mkdir "$dir/db";
    chmod 0755, "$dir/htdocs", "$dir/db";
    HSCTest::spew_raw("$dir/db/users.db",
                      HSCTest::slurp_raw(fault_good_db()), 0644);
    chown $uid, $gid, "$dir/db", "$dir/db/users.db";
    my $port = free_port();
    my $keys = "$dir/keys";
    my $user = '';
    if ($> == 0) {
        my $group = getgrgid($gid) // 'nogroup';
        $user = "User nobody\nGroup $group\n";
    }
    open my $cf, '>', "$dir/httpd.conf" or die $!;
    print $cf <<"EOT";
ServerRoot "$dir"
ServerName localhost
Listen 127.0.0.1:$port
PidFile "$dir/httpd.pid"
ErrorLog "$dir/error_log"
LogLevel warn
DefaultRuntimeDir "$dir"
DocumentRoot "$dir/htdocs"
${user}Include "$modules"
LoadModule hsc_module "$module"
HSCKeyFile "$keys"
HSCUserDB "$dir/db/users.db"
HSCCookieSecure Off
<Location /login>
    SetHandler hsc-login
</Location>
<Location /p>
    AuthType HSC
    Require valid-user
</Location>
EOT
    close $cf;
    open my $mt, '>', "$dir/mime.types" or die $!;
    close $mt;
    open my $pf, '>', "$dir/htdocs/p" or die $!;
    print $pf "page p\n";
    close $pf;
    my $ctl = sub {
        my $out = `"$httpd" -f "$dir/httpd.conf" -k $_[0] 2>&1`;
        return ($? >> 8, $out);
    };
    my $pid = sub {
        open my $fh, '<', "$dir/httpd.pid" or return undef;
        my $p = <$fh>;
        return $p && $p =~ /^(\d+)/ ? $1 : undef;
    };
    my $alive = sub { my $p = $pid->(); return $p && kill(0, $p) };
    my $get = sub {
        my ($path, @h) = @_;
        my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port",
                                      Timeout => 3) or return '';
        print $s "GET $path HTTP/1.1\r\nHost: localhost\r\n",
            map({ "$_\r\n" } @h), "Connection: close\r\n\r\n";
        local $/;
        my $r = <$s> // '';
        close $s;
        return $r;
    };

    # A missing key file: httpd does not start, and says why.
    my ($rc, $out) = $ctl->('start');
    isnt($rc, 0, 'key file missing: httpd -k start fails');
    like($out, qr{HSCKeyFile: .*\Q$keys\E}, 'and names the key file')
        or diag $out;
    ok(!$alive->() && $get->('/login') eq '', 'and nothing serves');
    # A broken one (a secret too short).
    HSCTest::spew($keys, "k1 tooshort\n");
    ($rc, $out) = $ctl->('start');
    isnt($rc, 0, 'key file broken: httpd -k start fails');
    like($out, qr{HSCKeyFile: .*\Q$keys\E}, 'and names the key file')
        or diag $out;
    ok(!$alive->(), 'and no server runs');

    # A good one: it starts and serves.
    my $good = HSCTest::slurp(var_dir() . '/keys');
    HSCTest::spew($keys, $good);
    ($rc, $out) = $ctl->('start');
    is($rc, 0, 'a good key file: httpd starts')
        or diag $out, eval { HSCTest::slurp("$dir/error_log") } // '';
    ok(poll_until(10, sub { $get->('/login') =~ m{^HTTP/1\.1 200 } }),
       'and serves the login page');
    like($get->('/p'), qr{^HTTP/1\.1 401 }, 'and protects /p');

    # The key file breaks while it runs. `httpd -k graceful` reads the
    # configuration first: it refuses, and the old server goes on.
    HSCTest::spew($keys, "k1 tooshort\n");
    my $before = $pid->() // 0;
    ($rc, $out) = $ctl->('graceful');
    isnt($rc, 0, 'broken key file: httpd -k graceful refuses');
    like($out, qr{HSCKeyFile: .*\Q$keys\E}, 'and says why') or diag $out;
    ok($alive->() && $pid->() == $before
       && $get->('/login') =~ m{^HTTP/1\.1 200 },
       'the running server goes on with the key it loaded');
    # A restart signal sent directly: the parent reads the configuration,
    # fails, logs why and exits (no server with a broken key).
    kill 'USR1', $before if $before;
    ok($before && poll_until(10, sub { !kill 0, $before }),
       'a graceful restart signal with a broken key file: httpd exits');
    my $elog = HSCTest::slurp("$dir/error_log");
    like($elog, qr{HSCKeyFile: .*\Q$keys\E}, 'and its error log says why')
        or diag $elog;
    is($get->('/login'), '', 'and nothing serves');
    # A missing key file at a restart: the same.
    HSCTest::spew($keys, $good);
    ($rc, $out) = $ctl->('start');
    is($rc, 0, 'the good key file back: httpd starts again') or diag $out;
    ok(poll_until(10, sub { $get->('/login') =~ m{^HTTP/1\.1 200 } }),
       'and serves');
    my $p2 = $pid->() // 0;
    unlink $keys;
    kill 'HUP', $p2 if $p2;
    ok($p2 && poll_until(10, sub { !kill 0, $p2 }),
       'a restart signal with the key file deleted: httpd exits');
    $elog = HSCTest::slurp("$dir/error_log");
    is(scalar(() = $elog =~ /HSCKeyFile: .*\Q$keys\E/g), 2,
       'and its error log says why, once more') or diag $elog;
    # Whatever happened above, no server of ours is left behind.
    if (my $p = $pid->()) {
        kill 'TERM', $p if kill 0, $p;
    }
}

sub spew_junk
{
    my ($file, $bytes) = @_;
    HSCTest::spew_raw($file, $bytes, 0644);
    chown $uid, $gid, $file;
}

# Overwrite $file's bytes, keeping its inode.
sub spew_in_place
{
    my ($file, $bytes) = @_;
    open my $fh, '+<:raw', $file or die "$file: $!";
    truncate $fh, 0;
    print $fh $bytes;
    close $fh or die "$file: $!";
}

# The sqlite3 CLI holding a transaction open on a pipe, as the children's
# user (so that the files SQLite makes beside the database stay theirs).
package Locker;

sub start
{
    my ($class, $db, $exclusive_mode, $sql) = @_;
    my ($uid, $gid) = HSCTest::child_ids();
    my $err = Symbol::gensym();
    my $pid = IPC::Open3::open3(my $in, my $out, $err, '-');
    if ($pid == 0) {
        if ($> == 0) {
            POSIX::setgid($gid);
            $) = "$gid $gid";
            POSIX::setuid($uid);
        }
        exec 'sqlite3', '-batch', '-cmd', '.timeout 2000', $db
            or POSIX::_exit(127);
    }
    $in->autoflush(1);
    print $in "PRAGMA locking_mode = EXCLUSIVE;\n" if $exclusive_mode;
    print $in "BEGIN EXCLUSIVE;\n$sql\nSELECT 'locked';\n";
    my $sel = IO::Select->new($out);
    my $got = '';
    while ($got !~ /^locked$/m && $sel->can_read(5)) {
        last unless sysread $out, $got, 4096, length $got;
    }
    my $self = bless { pid => $pid, in => $in, out => $out, err => $err },
        $class;
    if ($got !~ /^locked$/m) {
        $self->finish('');
        return undef;
    }
    return $self;
}

# Send the last statement (COMMIT or ROLLBACK), close, and wait.
sub finish
{
    my ($self, $sql) = @_;
    my $in = $self->{in};
    print $in "$sql\n.quit\n";
    close $in;
    waitpid $self->{pid}, 0;
}
