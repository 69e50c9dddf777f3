# The audit log (HSCAuditLog, docs/audit-log.md) as the module writes it:
# one JSON object a line for each login, logout, refused cookie class,
# throttle lockout and hsc-admin change; the fields; hostile usernames
# escaped; never a secret. Then the fail2ban filter of conf/fail2ban/ over
# the lines this file made the server write (fail2ban-regex).
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest ();
use Encode ();
use File::Temp qw(tempdir);
use IO::Socket::INET ();
use JSON::PP ();
use Time::HiRes qw(time sleep);
use HSCTest;

plan tests => 86;
binmode(Test::More->builder->$_, ':encoding(UTF-8)')
    for qw(output failure_output todo_output);

my $db = var_dir() . '/users.db';
my $audit = Apache::Test::vars('t_logs') . '/hsc-audit.log';
my %pw;
for my $u (qw(aud-u1 aud-u2 aud-u3 aud-dis aud-rev aud-x)) {
    $pw{$u} = "$u-secret-pw";
    admin_ok("$pw{$u}\n", 'add', $db, $u, '--kdf', 'sha256-chain:1000',
             '--password-stdin', '--force');
}
admin_ok(undef, 'disable', $db, 'aud-dis');

sub size_of { return -s $audit || 0 }

# The audit lines written since byte $off, decoded (dies on bad JSON).
sub lines_since
{
    my ($off) = @_;
    open my $fh, '<:raw', $audit or die "$audit: $!";
    seek $fh, $off, 0;
    my @l;
    while (my $line = <$fh>) {
        push @l, { raw => $line, j => JSON::PP->new->utf8->decode($line) };
    }
    return @l;
}

# The one line since $off with event $ev and (optionally) reason $why.
sub line_of
{
    my ($off, $ev, %m) = @_;
    my @hit = grep {
        my $j = $_->{j};
        $j->{event} eq $ev
            && !grep { ($j->{$_} // '') ne $m{$_} } keys %m
    } lines_since($off);
    return @hit == 1 ? $hit[0]{j} : undef;
}

ua_plain();
# The main server's signing key: t/12 rotates it (k3 signs after it).
my ($signer) = do {
    open my $kfh, '<', var_dir() . '/keys' or die;
    map { /^(\S+) / ? $1 : () } grep { !/^#/ } <$kfh>;
};
my $start = size_of();
my @cookies;   # every cookie value seen: none may reach the log

sub login_cookie
{
    my ($user, %o) = @_;
    my $res = login($user, $o{pw} // $pw{$user}, %o);
    my $c = cookie_from($res, $o{name} // 'hsc');
    push @cookies, $c if defined $c;
    return ($res, $c);
}

# --- logins -----------------------------------------------------------------
my $off = size_of();
my ($res, $c1) = login_cookie('aud-u1');
is($res->code, 303, 'aud-u1 logs in');
my $j = line_of($off, 'login', user => 'aud-u1');
ok($j, 'one login line for it') or diag explain [lines_since($off)];
is($j->{outcome}, 'success', 'outcome success');
ok(!exists $j->{reason}, 'no reason on a success');
is($j->{kid}, $signer, 'the key id that signed the cookie');
is($j->{client}, '127.0.0.1', 'the client address');
is($j->{vhost}, 'localhost', 'the virtual host');
like($j->{request_id} // '', qr/^[A-Za-z0-9\@_-]{20,}$/,
     'the request id of mod_unique_id');
like($j->{time}, qr/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/,
     'time: RFC 3339, UTC, milliseconds');
my ($y, $mo, $d, $h, $mi, $s) = $j->{time} =~ /^(\d+)-(\d+)-(\d+)T(\d+):(\d+):([\d.]+)Z/;
require Time::Local;
my $t = Time::Local::timegm(int $s, $mi, $h, $d, $mo - 1, $y) + ($s - int $s);
ok(abs($t - time) < 30, 'and now');

$off = size_of();
login('aud-u1', 'wrong-password');
login('aud-nosuch', 'whatever');
my $wrong = line_of($off, 'login', user => 'aud-u1');
my $unknown = line_of($off, 'login', user => 'aud-nosuch');
is($wrong && $wrong->{outcome}, 'failure', 'a wrong password is a failure');
is($wrong && $wrong->{reason}, 'bad_credentials', 'reason bad_credentials');
is($unknown && $unknown->{reason}, 'bad_credentials',
   'an unknown user: the same reason');
is(join(',', sort keys %$wrong), join(',', sort keys %$unknown),
   'and the same fields');

$off = size_of();
$res = login('aud-dis', $pw{'aud-dis'});
is($res->code, 401, 'a disabled user is refused');
is(line_of($off, 'login', user => 'aud-dis')->{reason}, 'disabled',
   'reason disabled');

# A hostile name: quotes, a forged field, controls, ESC, invalid UTF-8.
my $hostile = "aud\",\"client\":\"6.6.6.6\",\"outcome\":\"success\\\x01\x1b[2J\n\xff";
$off = size_of();
login($hostile, 'x');
my @l = lines_since($off);
is(scalar @l, 1, 'a hostile username: one line');
unlike($l[0]{raw}, qr/[\x00-\x1f\x7f](?!\z)/, 'no raw control byte in it');
like($l[0]{raw}, qr/\n\z/, 'ending in its line break');
is($l[0]{j}{outcome}, 'failure', 'the forged outcome stayed in the name');
my $want = substr($hostile, 0, -1) . "\x{fffd}"; # ASCII, then U+FFFD
is($l[0]{j}{user}, $want,
   'a JSON parser reads back the name as typed (invalid byte: U+FFFD)');

# Throttled, behind a proxy (mod_remoteip): HSCThrottleAddress 2.
$off = size_of();
my @xff = (Host => 'remoteip.test', 'X-Forwarded-For' => '203.0.113.9');
my @codes = map { login('aud-u1', 'bad', headers => \@xff)->code } 1 .. 3;
is("@codes", '401 401 429', 'two failures from 203.0.113.9, then 429');
my @thr = grep { $_->{j}{event} eq 'login' } lines_since($off);
is(scalar @thr, 3, 'three login lines');
is(join(' ', map { $_->{j}{client} } @thr), '203.0.113.9 ' x 2 . '203.0.113.9',
   'each with the address mod_remoteip gave (the one the throttle counts)');
is($thr[2]{j}{reason}, 'throttled', 'the third: throttled');
is($thr[2]{j}{counter}, 'address', 'by the address counter');
like($thr[2]{j}{until} // '', qr/^\d{4}-.*Z$/, 'until when, RFC 3339');
is($thr[2]{j}{vhost}, 'remoteip.test', 'in its virtual host');

# The user database gone: store_fault.
unlink fault_db('opsgone');
$off = size_of();
my $st = poll_until(5, sub {
    login('aud-u1', $pw{'aud-u1'}, headers => [Host => 'ops-gone.test'])
        ->code == 503 });
ok($st, 'a login on a deleted database: 503');
my @sf = grep { ($_->{j}{reason} // '') eq 'store_fault' } lines_since($off);
ok(@sf >= 1, 'logged as a failure with reason store_fault');

# --- refused cookies, by class ----------------------------------------------
sub get_refused
{
    my ($path, $name, $value, @h) = @_;
    my $o = size_of();
    my $r = get_with($path, $name, $value, @h);
    my @c = grep { $_->{j}{event} eq 'cookie' } lines_since($o);
    return ($r->code, @c == 1 ? $c[0]{j} : undef);
}

my ($mac_tampered) = $c1;
my @f = split /\./, $mac_tampered;
$f[-1] =~ s/^(.)/$1 eq 'A' ? 'B' : 'A'/e;
my ($code, $cl) = get_refused('/private/', 'hsc', join('.', @f));
is($code, 401, 'a forged MAC is refused');
is($cl && $cl->{reason}, 'bad_mac', 'class bad_mac');
is($cl && $cl->{user}, 'aud-u1', 'naming the user the cookie claims');
is($cl && $cl->{kid}, $signer, 'and its key id');

my (undef, $ca) = login_cookie('aud-u2', headers => [Host => 'scope-a.test']);
($code, $cl) = get_refused('/private/', 'hsc', $ca, Host => 'scope-b.test');
is($cl && $cl->{reason}, 'wrong_scope', 'a cookie of another HSCScope: wrong_scope');

my (undef, $ck2) = login_cookie('aud-u2', headers => [Host => 'k2only.test']);
($code, $cl) = get_refused('/private/', 'hsc', $ck2);
is($cl && $cl->{reason}, 'unknown_kid', 'a key id not in the key file: unknown_kid');
is($cl && $cl->{kid}, 'k2', 'naming it');

my (undef, $cidle) = login_cookie('aud-u2', path => '/audit-idle/login', name => 'haidle');
my (undef, $cexp) = login_cookie('aud-u2', path => '/audit-exp/login', name => 'haexp');
my (undef, $crev) = login_cookie('aud-rev');
my (undef, $cdis) = login_cookie('aud-u3');
ok($cidle && $cexp && $crev && $cdis, 'four more logins');
sleep 2.2;
admin_ok(undef, 'revoke', $db, 'aud-rev');
admin_ok(undef, 'disable', $db, 'aud-u3');
($code, $cl) = get_refused('/audit-idle/private/', 'haidle', $cidle);
is($cl && $cl->{reason}, 'idle', 'past the idle timeout: idle');
($code, $cl) = get_refused('/audit-exp/private/', 'haexp', $cexp);
is($cl && $cl->{reason}, 'expired', 'past HSCMaxAge: expired');
($code, $cl) = get_refused('/private/', 'hsc', $crev);
is($cl && $cl->{reason}, 'revoked', 'issued before a revocation: revoked');
($code, $cl) = get_refused('/private/', 'hsc', $cdis);
is($cl && $cl->{reason}, 'disabled', 'of a disabled user: disabled');
is($cl && $cl->{user}, 'aud-u3', 'naming the user');
($code, $cl) = get_refused('/private/', undef, undef, Cookie => "hsc=$c1; hsc=$c1");
is($cl && $cl->{reason}, 'duplicate', 'two cookies of our name: duplicate');
($code, $cl) = get_refused('/private/', 'hsc', 'garbage');
is($cl && $cl->{reason}, 'malformed', 'not a cookie: malformed');
($code, $cl) = get_refused('/private/', 'hsc', $c1);
is($code, 200, 'the good cookie still works');
ok(!$cl, 'and a verified cookie writes no line');

# --- logout -----------------------------------------------------------------
$off = size_of();
$res = post_form('/logout', '', Cookie => "hsc=$c1");
is($res->code, 303, 'logout');
$j = line_of($off, 'logout');
is($j && $j->{outcome}, 'success', 'a logout line');
ok($j && $j->{everywhere} eq JSON::PP::false, 'everywhere false');
is($j && $j->{user}, 'aud-u1', 'naming the user of the cookie');
my (undef, $cx) = login_cookie('aud-x');
$off = size_of();
$res = post_form('/logout', 'everywhere=1', Cookie => "hsc=$cx");
$j = line_of($off, 'logout');
ok($j && $j->{everywhere} eq JSON::PP::true, 'log out everywhere: true');
is($j && $j->{user}, 'aud-x', 'naming the user');
is($j && $j->{outcome}, 'success', 'success');

# --- hsc-admin, into the same file --------------------------------------------
$off = size_of();
my @a = ('--audit-log', $audit);
admin_ok("aud-new-pw\n", 'add', $db, 'aud-new', '--kdf', 'sha256-chain:1000', '--password-stdin', '--force', @a);
admin_ok("aud-new-pw2\n", 'passwd', $db, 'aud-new', '--kdf', 'sha256-chain:1000', '--password-stdin', '--force', @a);
admin_ok(undef, $_, $db, 'aud-new', @a) for qw(disable enable revoke del);
my ($rc) = admin('del', $db, 'aud-new', @a);
isnt($rc, 0, 'deleting a missing user fails');
my @adm = map { $_->{j} } grep { $_->{j}{event} eq 'admin' } lines_since($off);
is(join(' ', map { $_->{action} } @adm),
   'add passwd disable enable revoke del del', 'one line per change');
is(join(' ', map { $_->{outcome} } @adm),
   'success ' x 6 . 'failure', 'the last one failed');
is($adm[6]{reason}, 'no_such_user', 'and says why');
is(scalar(grep { ($_->{user} // '') eq 'aud-new' } @adm), 7, 'each names the user');
my $me = getpwuid($<);
is(scalar(grep { ($_->{actor} // '') eq $me } @adm), 7,
   'and who ran hsc-admin');
like($adm[0]{time}, qr/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'same time format');
($rc, my $out) = admin('enable', $db, 'aud-u1', '--audit-log', '/nonexistent/dir/log');
isnt($rc, 0, 'hsc-admin fails when it cannot write the audit log');
like($out, qr{audit log}, 'and says so');
# Never through a symbolic link (root would append to its target).
my $target = "$audit.target";
my $link = "$audit.link";
open my $tfh, '>', $target or die; close $tfh;
unlink $link; symlink($target, $link) or die "symlink: $!";
($rc, $out) = admin('enable', $db, 'aud-u1', '--audit-log', $link);
isnt($rc, 0, 'hsc-admin refuses an audit log that is a symbolic link');
is(-s $target, 0, 'and writes nothing through it');

# --- the whole file -----------------------------------------------------------
my $all = do { open my $fh, '<:raw', $audit or die; local $/; <$fh> };
my $bad = 0;
for my $line (split /\n/, $all) {
    my $o = eval { JSON::PP->new->utf8->decode($line) };
    $bad++ unless ref $o eq 'HASH' && $o->{time} && $o->{event} && $o->{outcome};
}
is($bad, 0, 'every line of the log is a JSON object with time, event, outcome');
my @leaks = grep { index($all, $_) >= 0 }
    (values %pw, 'aud-new-pw', map { (split /\./)[-2, -1] } grep { defined } @cookies);
is(scalar @leaks, 0, 'no password, x_n or MAC in the log') or diag "@leaks";
# Every KDF-cap refusal of the run so far (t/16 provokes them under the
# threaded MPMs) has its audit line: as many as HSC055 error log lines.
my $n055 = () = error_log_text() =~ /HSC055: /g;
my $nkdf = () = $all =~ /"reason":"kdf_cap"/g;
is($nkdf, $n055, "each KDF-cap refusal (HSC055, $n055 of them) is an audit line");

# --- fail2ban: the shipped filter over the lines written here --------------
{
    # Debian's fail2ban (scripts/install-deps-debian.sh): required, no skip.
    my $regex = `command -v fail2ban-regex 2>/dev/null`;
    chomp $regex;
    $regex ||= 'fail2ban-regex';
    my $filter = "$FindBin::Bin/../conf/fail2ban/filter.d/mod-hsc.conf";
    my $dir = tempdir(CLEANUP => 1);
    my @mine = lines_since($start);
    my @fail = grep { $_->{j}{event} eq 'login' && $_->{j}{outcome} eq 'failure'
                      && $_->{j}{reason} =~ /^(bad_credentials|disabled|throttled|bad_code)$/ } @mine;
    my @ok = grep { $_->{j}{outcome} eq 'success' } @mine;
    ok(@fail >= 7 && @ok >= 5, scalar(@fail) . ' failed logins and '
       . scalar(@ok) . ' successes written');
    for (['all', \@mine], ['success', \@ok]) {
        open my $fh, '>:raw', "$dir/$_->[0].log" or die;
        print $fh map { $_->{raw} } @{ $_->[1] };
        close $fh;
    }
    my $f2b = sub {
        my ($log) = @_;
        my $o = `"$regex" "$log" "$filter" 2>&1`;
        return ($o =~ /^Lines: (\d+) lines, \d+ ignored, (\d+) matched/m ? ($1, $2, $o) : (-1, -1, $o));
    };
    my ($n, $m, $o) = $f2b->("$dir/all.log");
    is($n, scalar @mine, 'fail2ban-regex read every line') or diag $o;
    is($m, scalar @fail, 'and matched exactly the failed logins of a guesser');
    like($o, qr/^\|\s+1\) \[\Q$m\E\] /m, 'all with the one failregex');
    ($n, $m, $o) = $f2b->("$dir/success.log");
    is($n, scalar @ok, 'success lines alone');
    is($m, 0, 'match nothing') or diag $o;
    # Which address each match bans (fail2ban's own reading of <ADDR>).
    my $hostile_name = grep { ($_->{j}{user} // '') =~ /"client"/ } @fail;
    ok($hostile_name, 'a failure whose name forges a "client" field is among them');
    $o = `"$regex" -o ip "$dir/all.log" "$filter" 2>&1`;
    my @ips = grep { /\S/ } split /\n/, $o;
    my %want;
    $want{$_->{j}{client}}++ for @fail;
    my %got;
    $got{$_}++ for @ips;
    is(join(',', map { "$_=$got{$_}" } sort keys %got),
       join(',', map { "$_=$want{$_}" } sort keys %want),
       'fail2ban reads the address mod_hsc wrote, never one a name forged')
        or diag $o;
    # The jail, with the filter, in a copy of this machine's fail2ban
    # configuration (its own jails dropped): fail2ban-client's own test.
    my $f2bdir = "$dir/fail2ban";
    system('cp', '-r', '/etc/fail2ban', $f2bdir) == 0 or die 'cp /etc/fail2ban';
    unlink glob "$f2bdir/jail.d/*";
    system('cp', $filter, "$f2bdir/filter.d/mod-hsc.conf") == 0 or die;
    my $jail = do {
        open my $jf, '<', "$FindBin::Bin/../conf/fail2ban/jail.d/mod-hsc.conf" or die;
        local $/;
        <$jf>;
    };
    $jail =~ s{^logpath\s*=.*$}{logpath  = $dir/all.log}m or die 'no logpath';
    open my $jo, '>', "$f2bdir/jail.d/mod-hsc.conf" or die;
    print $jo $jail;
    close $jo;
    (my $client = $regex) =~ s/fail2ban-regex$/fail2ban-client/;
    $o = `"$client" -c "$f2bdir" -t 2>&1`;
    like($o, qr/configuration test is successful/,
         'fail2ban-client accepts the jail and its filter') or diag $o;
    $o = `"$client" -c "$f2bdir" -d 2>&1`;
    like($o, qr/\['add', 'mod-hsc'.*'maxretry', 30\]/s,
         'as jail mod-hsc, with its limits') or diag $o;
}

# --- a piped audit log through rotatelogs, in a server of its own -----------
# (httpd's piped-log conventions: the parent starts the program, children
# write to its pipe); ServerTokens Prod there hides mod_hsc's version.
{
    my $httpd = Apache::Test::vars('httpd');
    my $modules = Apache::Test::vars('httpd_conf');
    my $module = $ENV{HSC_MODULE} || "$FindBin::Bin/../.libs/mod_hsc.so";
    my $rotatelogs = `command -v rotatelogs 2>/dev/null` || '/usr/bin/rotatelogs';
    chomp $rotatelogs;
    my $dir = tempdir(CLEANUP => 1);
    chmod 0755, $dir;
    mkdir "$dir/htdocs";
    chmod 0755, "$dir/htdocs";
    open my $mt, '>', "$dir/mime.types" or die $!;
    close $mt;
    my $port = free_port();
    my $user = '';
    if ($> == 0) {
        my $group = getgrgid((getpwnam('nobody'))[3]) // 'nogroup';
        $user = "User nobody\nGroup $group\n";
    }
    my $keys = var_dir() . '/keys';
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
ServerTokens Prod
${user}Include "$modules"
LoadModule hsc_module "$module"
HSCKeyFile "$keys"
HSCUserDB "$db"
HSCCookieSecure Off
HSCAuditLog "|$rotatelogs -l $dir/audit.%Y-%m-%d 86400"
<Location /login>
    SetHandler hsc-login
</Location>
EOT
    close $cf;
    my $out = `"$httpd" -f "$dir/httpd.conf" -k start 2>&1`;
    my $up = $? == 0 && poll_until(10, sub {
        IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 2) });
    ok($up, 'a server with HSCAuditLog "|rotatelogs ..." starts') or diag $out;
    my $head = '';
    for my $pw ('wrong', $pw{'aud-u2'}) {
        my $sk = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port",
                                       Timeout => 10) or last;
        my $body = form_encode(username => 'aud-u2', password => $pw);
        print $sk "POST /login HTTP/1.1\r\nHost: localhost\r\n"
            . "Content-Type: application/x-www-form-urlencoded\r\n"
            . "Connection: close\r\nContent-Length: " . length($body)
            . "\r\n\r\n$body";
        local $/;
        $head = <$sk> // '';
        close $sk;
    }
    like($head, qr{^HTTP/1.1 303}, 'logins answered');
    like($head, qr{^Server: Apache\r?$}m,
         'ServerTokens Prod: no mod_hsc version in the Server header');
    my @files;
    my $got = poll_until(5, sub {
        @files = glob "$dir/audit.*";
        return @files == 1 && (-s $files[0] // 0) > 0
            && do { open my $a, '<', $files[0]; my @l = <$a>; @l == 2 };
    });
    ok($got, 'rotatelogs wrote the dated file') or diag "@files";
    my @lines = $got ? do { open my $a, '<', $files[0]; <$a> } : ();
    my @ev = map { eval { JSON::PP->new->utf8->decode($_) } } @lines;
    is(join(' ', map { "$_->{outcome}" . ($_->{reason} ? ":$_->{reason}" : '') } @ev),
       'failure:bad_credentials success', 'both logins, in order, as JSON');
    `"$httpd" -f "$dir/httpd.conf" -k stop 2>&1`;
    ok(poll_until(10, sub { !-e "$dir/httpd.pid" }), 'and it stops');

    # An audit log that cannot be opened stops startup, and says why.
    open my $in, '<', "$dir/httpd.conf" or die;
    (my $bad = do { local $/; <$in> }) =~ s{^HSCAuditLog .*$}{HSCAuditLog "$dir/no/such/dir/audit.log"}m;
    open my $bc, '>', "$dir/bad.conf" or die;
    print $bc $bad;
    close $bc;
    unlink "$dir/error_log";
    `"$httpd" -f "$dir/bad.conf" -k start 2>&1`;
    my $elog = poll_until(10, sub {
        open my $e, '<', "$dir/error_log" or return '';
        local $/;
        my $t = <$e> // '';
        return $t =~ /HSC165/ ? $t : '';
    });
    like($elog, qr{HSC165: HSCAuditLog: cannot open \Q$dir\E/no/such/dir/audit\.log},
         'an audit log that cannot be opened: HSC165');
    ok(poll_until(10, sub { !-e "$dir/httpd.pid" }), 'and the server does not run');
}
