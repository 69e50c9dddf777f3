# SetHandler hsc-metrics: every counter moves by exactly what known
# traffic should make it move (deltas: other files ran before), summed
# over every child and thread; and the page is read by a real Prometheus
# text parser (python3-prometheus-client, /usr/bin/python3).
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest ();
use File::Temp qw(tempdir);
use HSCTest;

plan tests => 52;

my $db = var_dir() . '/users.db';
my %pw;
for my $u (qw(met-u1 met-u2 met-dis met-thr)) {
    $pw{$u} = "$u-pw";
    admin_ok("$pw{$u}\n", 'add', $db, $u, '--kdf', 'sha256-chain:1000',
             '--password-stdin', '--force');
}
admin_ok(undef, 'disable', $db, 'met-dis');

ua_plain();
# The main server's signing key: t/12 rotates it (k3 signs after it).
my ($signer) = do {
    open my $kfh, '<', var_dir() . '/keys' or die;
    map { /^(\S+) / ? $1 : () } grep { !/^#/ } <$kfh>;
};

# The page as { 'name{labels}' => value } (and the raw text).
sub scrape
{
    my $res = Apache::TestRequest::GET('/hsc-metrics');
    die 'scrape: ' . $res->code unless $res->code == 200;
    my %m;
    for (split /\n/, $res->content) {
        next if /^#/;
        my ($k, $v) = /^(\S+) (\S+)$/ or die "bad sample line: $_";
        $m{$k} = $v;
    }
    return wantarray ? (\%m, $res) : \%m;
}

# How much each listed sample moved between two scrapes.
sub delta
{
    my ($a, $b, $k) = @_;
    die "no sample $k" unless exists $b->{$k};
    return $b->{$k} - ($a->{$k} // 0);
}

my ($m0, $res) = scrape();
is($res->header('Content-Type'), 'text/plain; version=0.0.4; charset=utf-8',
   'Content-Type of the text exposition format 0.0.4');
is($res->header('Cache-Control'), 'no-store', 'not cached');
my $version = do {
    open my $fh, '<', "$FindBin::Bin/../hsc_core/hsc_version.h" or die;
    local $/;
    <$fh> =~ /#define HSC_VERSION "([^"]+)"/ ? $1 : die 'no version';
};
is($m0->{"hsc_build_info{version=\"$version\"}"}, 1,
   "hsc_build_info{version=\"$version\"} 1");

# --- phase A: logins, cookies, lockouts, logouts -----------------------------
my $before = scrape();
my @cookies;
for (1 .. 2) {
    my $r = login('met-u1', $pw{'met-u1'});
    push @cookies, cookie_from($r);
}
ok($cookies[0] && $cookies[1], 'two logins');                     # kdf 2
login('met-u1', 'wrong');                                         # kdf 3
login('met-nosuch', 'x');                                         # kdf 4
is(login('met-dis', $pw{'met-dis'})->code, 401, 'a disabled user');  # 5
login("met\x01bad", 'x');                  # invalid name: no KDF
# Address lockout behind mod_remoteip (HSCThrottleAddress 2).
my @x = (Host => 'remoteip.test', 'X-Forwarded-For' => '203.0.113.10');
is(join(' ', map { login('met-u2', 'bad', headers => \@x)->code } 1 .. 3),
   '401 401 429', 'address lockout');                             # kdf 7
# Username lockout (throttle-user.test: HSCThrottleUser 3).
my @u = (Host => 'throttle-user.test');
is(join(' ', map { login('met-thr', 'bad', headers => \@u)->code } 1 .. 4),
   '401 401 401 429', 'username lockout');                        # kdf 10
# A cookie signed by k2 (rotated.test signs with k2, verifies k1 too).
my $rot = login('met-u2', $pw{'met-u2'}, headers => [Host => 'rotated.test']);
my $c2 = cookie_from($rot);                                       # kdf 11
ok($c2, 'a login signed by k2');
is(get_with('/private/', 'hsc', $c2, Host => 'rotated.test')->code, 200,
   'and its cookie verifies there');
is(get_with('/private/', 'hsc', $cookies[0])->code, 200, 'cookie ok 1')
    for 1 .. 3;
my @f = split /\./, $cookies[1];
$f[-1] =~ s/^(.)/$1 eq 'A' ? 'B' : 'A'/e;
is(get_with('/private/', 'hsc', join('.', @f))->code, 401, 'a forged MAC');
is(get_with('/private/', 'hsc', 'nonsense')->code, 401, 'a malformed cookie');
is(post_form('/logout', '', Cookie => "hsc=$cookies[1]")->code, 303,
   'a logout');
is(post_form('/logout', form_encode(everywhere => 1),
             Cookie => "hsc=$cookies[0]")->code, 303,
   'a logout everywhere (verifies the cookie once more)');
my $after = scrape();

my %want = (
    'hsc_login_attempts_total{step="password",method="pwd",outcome="success"}' => 3,
    'hsc_login_attempts_total{step="password",method="pwd",outcome="bad_credentials"}' => 3 + 2 + 3,
    'hsc_login_attempts_total{step="password",method="pwd",outcome="disabled"}' => 1,
    'hsc_login_attempts_total{step="password",method="pwd",outcome="throttled"}' => 2,
    'hsc_login_attempts_total{step="password",method="pwd",outcome="kdf_cap"}' => 0,
    'hsc_login_attempts_total{step="password",method="pwd",outcome="store_fault"}' => 0,
    'hsc_throttle_lockouts_total{counter="address"}' => 1,
    'hsc_throttle_lockouts_total{counter="user"}' => 1,
    'hsc_cookie_checks_total{outcome="ok"}' => 1 + 3 + 1,
    'hsc_cookie_checks_total{outcome="bad_mac"}' => 1,
    'hsc_cookie_checks_total{outcome="malformed"}' => 1,
    'hsc_cookie_checks_total{outcome="revoked"}' => 0,
    'hsc_logouts_total{everywhere="false"}' => 1,
    'hsc_logouts_total{everywhere="true"}' => 1,
    'hsc_kdf_seconds_count' => 11,
    'hsc_kdf_seconds_bucket{le="+Inf"}' => 11,
    "hsc_signing_key_uses_total{kid=\"$signer\"}" => 2 + 3 + 1,
    'hsc_signing_key_uses_total{kid="k2"}' => 1 + 1,
    'hsc_signing_key_uses_total{kid="other"}' => 0,
    'hsc_store_errors_total' => 0,
);
for my $k (sort keys %want) {
    is(delta($before, $after, $k), $want{$k}, "$k moved by $want{$k}");
}
ok(delta($before, $after, 'hsc_kdf_seconds_sum') > 0, 'KDF time was added');
my @b = map { $after->{"hsc_kdf_seconds_bucket{le=\"$_\"}"} }
    qw(0.005 0.01 0.025 0.05 0.1 0.25 0.5 1 2.5 5 10 +Inf);
ok(!grep({ !defined } @b) && !grep({ $b[$_] < $b[$_ - 1] } 1 .. $#b),
   'histogram buckets are cumulative');
is($after->{hsc_kdf_slots_in_use}, 0, 'no KDF running at rest');

# --- phase B: the user record cache --------------------------------------------
my $cb = login('met-u2', $pw{'met-u2'});
my $c = cookie_from($cb);
$before = scrape();
is(get_with('/private/', 'hsc', $c)->code, 200, 'a lookup') for 1 .. 5;
$after = scrape();
is(delta($before, $after, 'hsc_user_cache_hits_total')
       + delta($before, $after, 'hsc_user_cache_misses_total'), 5,
   'five lookups: hits + misses = 5');

# --- phase C: a deleted user database ----------------------------------------
unlink fault_db('opsgone');
ok(poll_until(5, sub {
    Apache::TestRequest::GET('/hsc-health', Host => 'ops-gone.test')->code
        == 503 }), 'the deleted database is noticed');
# A child reuses the store's answer for a second, so probes a second apart
# each ask the store. (That probes at once do not is counted on PostgreSQL
# by test/nodes/two-nodes.sh: a 503 closes the connection, so here each
# probe may meet another prefork child.)
$before = scrape();
for (1 .. 2) {
    select(undef, undef, undef, 1.1);
    Apache::TestRequest::GET('/hsc-health', Host => 'ops-gone.test');
}
$after = scrape();
is(delta($before, $after, 'hsc_store_errors_total'), 2,
   'each failed store call counted once');

# --- the format, read by Prometheus's own parser -------------------------------
my ($last, $page) = scrape();
my $dir = tempdir(CLEANUP => 1);
open my $fh, '>', "$dir/page.txt" or die;
print $fh $page->content;
close $fh;
open $fh, '>', "$dir/parse.py" or die;
print $fh <<'PY';
import sys
from prometheus_client.parser import text_string_to_metric_families
for fam in text_string_to_metric_families(open(sys.argv[1]).read()):
    for s in fam.samples:
        labels = ",".join('%s="%s"' % kv for kv in sorted(s.labels.items()))
        print("%s %s %s%s %s" % (fam.name, fam.type, s.name,
                                 "{%s}" % labels if labels else "", s.value))
PY
close $fh;
my $py = '/usr/bin/python3';
my @out = `$py "$dir/parse.py" "$dir/page.txt" 2>&1`;
is($?, 0, 'prometheus_client parses the page') or diag @out;
my %type = map { (split / /)[0, 1] } @out;
my %types = (
    hsc_build_info => 'gauge', hsc_cookie_checks => 'counter',
    hsc_login_attempts => 'counter', hsc_logouts => 'counter',
    hsc_throttle_lockouts => 'counter', hsc_kdf_seconds => 'histogram',
    hsc_kdf_slots_in_use => 'gauge', hsc_user_cache_hits => 'counter',
    hsc_user_cache_misses => 'counter', hsc_store_errors => 'counter',
    hsc_signing_key_uses => 'counter');
is(join(' ', map { "$_=" . ($type{$_} // '-') } sort keys %types),
   join(' ', map { "$_=$types{$_}" } sort keys %types),
   'every family with its type (HELP and TYPE read)');
is(scalar(@out), scalar(keys %$last), 'it reads every sample we wrote');
# The parser lists labels sorted by name; we write them in our order.
sub sorted_labels
{
    my ($k) = @_;
    return $k unless $k =~ /^([^{]+)\{(.*)\}$/;
    my ($name, $labels) = ($1, $2);
    return "$name\{" . join(',', sort split /,(?=[a-z_]+=")/, $labels) . '}';
}
my %pyval = map { my @w = split / /; ($w[2] => $w[3]) } @out;
my @diff = grep {
    my $p = $pyval{ sorted_labels($_) };
    !defined $p || $p != $last->{$_}
} keys %$last;
is("@diff", '', 'with the same names, labels and values');

is(Apache::TestRequest::POST('/hsc-metrics', content => 'x')->code, 405,
   'POST: 405');
