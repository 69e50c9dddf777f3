# Login throttling and the per-child KDF cap, in the hosts of the
# "t/16_throttle.t" section of t/conf/extra.conf.in:
#   throttle-user.test  HSCThrottleUser 3, window 6 s (address off)
#   throttle-addr.test  HSCThrottleAddress 4, window 8 s (username off)
#   throttle-kdf.test   HSCMaxLoginKDF 1 (throttling off)
# Every user here is this file's own (added below), so no other file's
# failed logins count against them. Then two separate httpds, started by
# this file: without mod_socache_shmcb (throttling off, HSC050) and with a
# memcache cache nobody answers (HSC054: logins go on, unthrottled).
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest ();
use File::Temp qw(tempdir);
use IO::Socket::INET ();
use Time::HiRes qw(time);
use HSCTest;

plan tests => 45;

my $db = var_dir() . '/users.db';
my %pw;
for my $u (qw(thr-u1 thr-u2 thr-a1 thr-a2 thr-a3 thr-a4 thr-a5)) {
    $pw{$u} = "$u-pw";
    admin_ok("$pw{$u}\n", 'add', $db, $u, '--kdf', 'sha256-chain:1000',
             '--password-stdin', '--force');
}
# Slow users: about a second of KDF work per login on this machine.
for my $u (qw(thr-slow thr-slow2)) {
    $pw{$u} = "$u-pw";
    admin_ok("$pw{$u}\n", 'add', $db, $u, '--kdf', 'sha256-chain:3000000',
             '--password-stdin', '--force');
}

my $log = Apache::Test::vars('t_logs') . '/error_log';
my $var_keys = var_dir() . '/keys';
sub log_text { open my $fh, '<', $log or die "$log: $!"; local $/; <$fh> }

ua_plain();

# POST a login to /login of $host; returns the response and the seconds
# it took.
sub login_at
{
    my ($host, $user, $pw) = @_;
    my $t0 = time;
    my $res = login($user, $pw, headers => [Host => $host]);
    return wantarray ? ($res, time - $t0) : $res;
}

sub codes { return join ' ', map { login_at(@_)->code } 1 .. shift }

# Raw connections: each stays open (keep-alive) after its answer, so under
# prefork the connections open at one time are served by distinct children.
my ($addr, $port) = split /:/, Apache::TestRequest::hostport();

sub raw_send
{
    my ($host, $user, $pw) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => $addr, PeerPort => $port,
                                  Proto => 'tcp', Timeout => 60)
        or die "connect $addr:$port: $!";
    $s->autoflush(1);
    my $body = form_encode(username => $user, password => $pw);
    print $s "POST /login HTTP/1.1\r\nHost: $host\r\n"
        . "Content-Type: application/x-www-form-urlencoded\r\n"
        . 'Content-Length: ' . length($body) . "\r\n\r\n$body";
    return $s;
}

# The status and headers (lower-case names) of the answer on $s.
sub raw_head
{
    my ($s) = @_;
    local $/ = "\r\n";
    my $status = <$s> // '';
    my %h;
    while (defined(my $l = <$s>)) {
        last if $l eq "\r\n";
        $l =~ s/\r\n\z//;
        my ($k, $v) = split /:\s*/, $l, 2;
        $h{lc $k} = $v;
    }
    my ($code) = $status =~ m{^HTTP/\S+ (\d{3})};
    return ($code // 0, \%h);
}

# --- per username -----------------------------------------------------------
my $uh = 'throttle-user.test';

# A success before the limit clears the username's count: without that,
# the third failure after it would be refused.
is(codes(2, $uh, 'thr-u1', 'wrong'), '401 401', 'two failed logins: 401');
is(login_at($uh, 'thr-u1', $pw{'thr-u1'})->code, 303,
   'the right password before the limit: 303');
is(codes(3, $uh, 'thr-u1', 'wrong'), '401 401 401',
   'the success cleared the count: three more failures are checked');
is(login_at($uh, 'thr-u1', 'wrong')->code, 429, 'then the fourth: 429');

is(codes(3, $uh, 'thr-u2', 'wrong'), '401 401 401',
   'three failed logins for thr-u2: 401');
my $res = login_at($uh, 'thr-u2', 'wrong');
my $throttled_at = time;
is($res->code, 429, 'the fourth: 429');
my $ra = $res->header('Retry-After') // '';
like($ra, qr/^[1-6]\z/, 'with Retry-After: the seconds left of the 6 s window')
    or diag "Retry-After: $ra";
like($res->content, qr/Too many failed logins/, 'and a short page');
like($res->content,
     qr/Try again in (less than a minute|about a minute)\./,
     'the wait in words, rounded (a 6 s window: less than a minute)');
like($res->content, qr{<a class="hsc-link" href="/login">Back to the login page</a>},
     'and a link back to the login page');
is($res->header('Cache-Control'), 'no-store', 'not cached');
$res = login_at($uh, 'thr-u2', $pw{'thr-u2'});
is($res->code, 429, 'the right password is refused too while throttled');
ok(!defined cookie_from($res), 'and no cookie');
like(log_text(), qr/HSC053: login throttled \(429\) for user "thr-u2": 3 failed logins/,
     'the refusal is logged with its tag (HSC053)');

# A slow user: the refusal comes without the KDF.
my @t;
for (1 .. 3) {
    my ($r, $dt) = login_at($uh, 'thr-slow', 'wrong');
    push @t, $dt;
    die 'thr-slow: ' . $r->code if $r->code != 401;
}
my ($r4, $dt4) = login_at($uh, 'thr-slow', 'wrong');
is($r4->code, 429, 'a slow-KDF user over the limit: 429');
my ($fastest) = sort { $a <=> $b } @t;
ok($dt4 < $fastest / 2,
   sprintf('the 429 came in %.3f s, a checked failure took %.3f s at best',
           $dt4, $fastest));
my @checked = log_text() =~ /HSC032: login refused for user "thr-slow"/g;
is(scalar @checked, 3, 'the password was checked three times, not four');

# --- per address ------------------------------------------------------------
my $ah = 'throttle-addr.test';

# Four failures for four usernames, each on its own connection held open:
# under prefork, four children. The count is shared.
my @held;
my @codes;
for my $u (qw(thr-a1 thr-a2 thr-a3 thr-a4)) {
    my $s = raw_send($ah, $u, 'wrong');
    push @held, $s;
    push @codes, (raw_head($s))[0];
}
is("@codes", '401 401 401 401',
   'four failed logins for four users from one address: 401');
my $s5 = raw_send($ah, 'thr-a5', $pw{'thr-a5'});
my ($c5, $h5) = raw_head($s5);
my $addr_throttled_at = time;
is($c5, 429, 'a fifth login from the address, another user, right password: 429');
my $ra5 = $h5->{'retry-after'} // '';
like($ra5, qr/^[1-8]\z/, 'with Retry-After') or diag "Retry-After: $ra5";
close $_ for @held, $s5;
like(log_text(), qr/HSC052: login throttled \(429\) for user "thr-a5": 4 failed logins from address \S+/,
     'logged with its tag (HSC052)');

# --- the KDF cap ------------------------------------------------------------
my $kh = 'throttle-kdf.test';
my $conf = Apache::Test::vars('httpd_conf') // '';
my $prefork = do {
    open my $fh, '<', $conf or die "$conf: $!";
    local $/;
    scalar(<$fh>) =~ /^\s*LoadModule\s+mpm_prefork_module/m;
};

# Three logins at once, two children (ServerLimit 2). Threaded MPMs: two
# of them meet in one child, where a KDF already runs, so one is refused.
# Prefork: a child serves one connection at a time and never runs two
# KDFs, so the cap must never bite (it is per child, not per server).
my @s = map { raw_send($kh, 'thr-slow2', 'wrong') } 1 .. 3;
my @ans = map { [raw_head($_)] } @s;
close $_ for @s;
my @busy = grep { $_->[0] == 503 } @ans;
my @done = grep { $_->[0] == 401 } @ans;
if ($prefork) {
    is(scalar @busy, 0, 'prefork: three parallel slow logins, no 503')
        or diag join ' ', map { $_->[0] } @ans;
    is(scalar @done, 3, 'prefork: all three are checked (401)');
    unlike(log_text(), qr/HSC055/, 'prefork: the cap never refused');
    my @checks = log_text() =~ /HSC032: login refused for user "thr-slow2"/g;
    ok(@checks >= 3, 'prefork: each of the three ran its password check');
}
else {
    ok(@busy >= 1, 'three parallel slow logins, cap 1: a 503')
        or diag join ' ', map { $_->[0] } @ans;
    is(@busy + @done, 3, 'the others are checked (401)');
    is($busy[0] ? $busy[0][1]{'retry-after'} : undef, '1',
       'the 503 says Retry-After: 1');
    like(log_text(), qr/HSC055: login refused \(503\) for user "thr-slow2"/,
         'logged with its tag (HSC055)');
}

# The dummy KDF of unknown users counts too.
@s = map { raw_send($kh, "thr-nosuch-$_", 'wrong') } 1 .. 3;
@ans = map { [raw_head($_)] } @s;
close $_ for @s;
my $unknown_busy = grep { $_->[0] == 503 } @ans;
if ($prefork) {
    is($unknown_busy, 0, 'prefork: three parallel unknown users, no 503')
        or diag join ' ', map { $_->[0] } @ans;
}
else {
    ok($unknown_busy >= 1, 'three parallel logins of unknown users: a 503')
        or diag join ' ', map { $_->[0] } @ans;
}

# --- the windows end --------------------------------------------------------
sleep_until($throttled_at + $ra + 0.3) if $ra =~ /^\d+\z/;
is(login_at($uh, 'thr-u2', $pw{'thr-u2'})->code, 303,
   'after Retry-After seconds the user logs in (the window ended)');
sleep_until($addr_throttled_at + $ra5 + 0.3) if $ra5 =~ /^\d+\z/;
is(login_at($ah, 'thr-a5', $pw{'thr-a5'})->code, 303,
   'and so does the address');

# --- separate servers: the cache missing or failing -------------------------
# Throttling is a brake, not an authentication factor: without its cache
# the server still starts and logins still work, checked as usual.

{
    my $httpd = Apache::Test::vars('httpd');
    my $modules = Apache::Test::vars('httpd_conf');
    my $module = $ENV{HSC_MODULE} || "$FindBin::Bin/../.libs/mod_hsc.so";
    my $dir = tempdir(CLEANUP => 1);
    chmod 0755, $dir;
    mkdir "$dir/$_" for qw(htdocs db);
    chmod 0755, "$dir/htdocs", "$dir/db";
    {
        open my $in, '<:raw', $db or die "$db: $!";
        open my $out, '>:raw', "$dir/db/users.db" or die $!;
        print $out do { local $/; <$in> };
        close $out or die $!;
    }
    if ($> == 0) {
        my ($uid, $gid) = (getpwnam('nobody'))[2, 3];
        chown $uid, $gid, "$dir/db", "$dir/db/users.db";
    }
    open my $mt, '>', "$dir/mime.types" or die $!;
    close $mt;

    # The test server's modules without mod_socache_shmcb; where the
    # modules live, for mod_socache_memcache.
    open my $mf, '<', $modules or die "$modules: $!";
    my @mods = grep { !/socache_shmcb/ } <$mf>;
    close $mf;
    my ($libexec) = map { m{^LoadModule\s+\S+\s+"?(\S+)/mod_authn_core\.so} ? $1 : () } @mods;
    open my $nf, '>', "$dir/modules.conf" or die $!;
    print $nf @mods;
    close $nf;

    my $run = 0;
    my $start = sub {
        my ($extra) = @_;
        my $port = free_port();
        my $user = '';
        if ($> == 0) {
            my $group = getgrgid((getpwnam('nobody'))[3]) // 'nogroup';
            $user = "User nobody\nGroup $group\n";
        }
        my $conf = "$dir/httpd" . $run++ . '.conf';
        open my $cf, '>', $conf or die $!;
        print $cf <<"EOT";
ServerRoot "$dir"
ServerName localhost
Listen 127.0.0.1:$port
PidFile "$dir/httpd.pid"
ErrorLog "$dir/error_log"
LogLevel warn
DefaultRuntimeDir "$dir"
DocumentRoot "$dir/htdocs"
${user}Include "$dir/modules.conf"
LoadModule hsc_module "$module"
HSCKeyFile "$var_keys"
HSCUserDB "$dir/db/users.db"
HSCCookieSecure Off
HSCThrottleUser 1
HSCThrottleAddress 1
$extra
<Location /login>
    SetHandler hsc-login
</Location>
EOT
        close $cf;
        unlink "$dir/error_log";
        my $out = `"$httpd" -f "$conf" -k start 2>&1`;
        my $rc = $? >> 8;
        my $up = $rc == 0 && poll_until(10, sub {
            my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port",
                                          Timeout => 2);
            return defined $s;
        });
        diag $out unless $up;
        return ($up ? $port : undef, $conf);
    };
    my $all_logs = '';
    my $stop = sub {
        my ($conf) = @_;
        `"$httpd" -f "$conf" -k stop 2>&1`;
        poll_until(10, sub { !-e "$dir/httpd.pid" });
        open my $fh, '<', "$dir/error_log" or return;
        local $/;
        $all_logs .= <$fh> // '';
    };
    my $codes = sub {
        my ($port, @pws) = @_;
        my @c;
        for my $pw (@pws) {
            my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port",
                                          Timeout => 30) or return 'down';
            my $body = form_encode(username => 'alice', password => $pw);
            print $s "POST /login HTTP/1.1\r\nHost: localhost\r\n"
                . "Content-Type: application/x-www-form-urlencoded\r\n"
                . "Connection: close\r\n"
                . 'Content-Length: ' . length($body) . "\r\n\r\n$body";
            push @c, (raw_head($s))[0];
            close $s;
        }
        return "@c";
    };
    my $errlog = sub {
        open my $fh, '<', "$dir/error_log" or return '';
        local $/;
        return scalar <$fh>;
    };

    # mod_socache_shmcb not loaded, HSCThrottleCache not set.
    my ($port, $conf) = $start->('');
    ok($port, 'without mod_socache_shmcb the server starts');
    # Logged by the detached parent, maybe after the port is open: poll.
    my $said = qr/HSC050: login throttling is off: the socache provider shmcb is not loaded/;
    poll_until(5, sub { $errlog->() =~ $said });
    like($errlog->(), $said, 'and says throttling is off (HSC050)');
    is($codes->($port, 'x', 'x', 'x', $PW{alice}), '401 401 401 303',
       'logins are checked as usual, never throttled');
    $stop->($conf) if $port;

    # A memcache cache nobody listens on: every lookup fails.
    my $closed = free_port();
    ($port, $conf) = $start->(
        "LoadModule socache_memcache_module $libexec/mod_socache_memcache.so\n"
        . "HSCThrottleCache memcache:127.0.0.1:$closed");
    ok($port, 'with an unreachable memcache cache the server starts');
    is($codes->($port, 'x', 'x', 'x', $PW{alice}), '401 401 401 303',
       'a failing cache: logins go on to the password check (fail open)');
    like($errlog->(), qr/HSC054: login throttling cache failure/,
         'and each failure is logged (HSC054)');
    unlike($errlog->(), qr/\Q$PW{alice}\E/, 'no password in the log');
    $stop->($conf) if $port;

    # The same with HSCThrottleUnavailable refuse: no password is checked
    # without being counted.
    ($port, $conf) = $start->(
        "LoadModule socache_memcache_module $libexec/mod_socache_memcache.so\n"
        . "HSCThrottleCache memcache:127.0.0.1:$closed\n"
        . "HSCThrottleUnavailable refuse");
    ok($port, 'HSCThrottleUnavailable refuse: the server starts');
    is($codes->($port, 'x', $PW{alice}), '503 503',
       'a failing cache: logins are refused with 503, even the right one');
    like($errlog->(), qr/HSC054: .*logins are refused \(503\)/,
         'and the failure says so (HSC054)');
    $stop->($conf) if $port;

    # shmcb loaded again (the test server's modules), tiny limits.
    open $nf, '>', "$dir/modules.conf" or die $!;
    open $mf, '<', $modules or die "$modules: $!";
    print {$nf} <$mf>;
    close $nf;
    ($port, $conf) = $start->('');
    ok($port, 'with mod_socache_shmcb the server starts');
    is($codes->($port, 'x', $PW{alice}), '401 429',
       'HSCThrottleUser 1: the second login is throttled');
    unlike($errlog->(), qr/HSC05[04]/, 'no cache warning');
    $stop->($conf) if $port;

    # A login the user database cannot answer (503) is not an attempt. One
    # thread, so the login that fails is the one whose handle saw the file.
    ($port, $conf) = $start->(<<'EOT');
<IfModule mpm_prefork_module>
    StartServers 1
    MinSpareServers 1
    MaxSpareServers 1
    ServerLimit 1
    MaxRequestWorkers 1
</IfModule>
<IfModule !mpm_prefork_module>
    ServerLimit 1
    StartServers 1
    ThreadsPerChild 1
    MinSpareThreads 1
    MaxSpareThreads 1
    MaxRequestWorkers 1
</IfModule>
EOT
    my $udb = "$dir/db/users.db";
    is($codes->($port, $PW{alice}), '303', 'one thread: alice logs in');
    rename $udb, "$udb.away" or die "rename: $!";
    my $fault = '';
    poll_until(5, sub { ($fault = $codes->($port, $PW{alice})) eq '503' });
    is($fault, '503', 'the user database gone: a login is 503');
    rename "$udb.away", $udb or die "rename: $!";
    my $back = '';
    poll_until(5, sub { ($back = $codes->($port, $PW{alice})) ne '503' });
    is($back, '303',
       'the database back: the next login is checked (the 503 was not '
       . 'counted against HSCThrottleUser 1)');
    $stop->($conf) if $port;
    unlike($all_logs, qr/AddressSanitizer|runtime error:|exit signal/,
           'no sanitizer report or crash in their logs');
}
