# SetHandler hsc-health: 200 and a short JSON body while the key file is
# loaded and on disk and the user database answers; 503 with the reason
# when the database is gone or the key file is missing; no KDF. And the
# Server banner: mod_hsc/VERSION with ServerTokens Full (httpd's default,
# which this test server keeps), as every module's version component.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest ();
use JSON::PP ();
use HSCTest;

plan tests => 26;

ua_plain();
my $json = JSON::PP->new->utf8;

sub health
{
    my (@h) = @_;
    my $path = @h % 2 ? shift @h : '/hsc-health';
    my $res = Apache::TestRequest::GET($path, @h);
    my $body = eval { $json->decode($res->content) };
    return ($res, $body);
}

my $version = do {
    open my $fh, '<', "$FindBin::Bin/../hsc_core/hsc_version.h" or die;
    local $/;
    <$fh> =~ /#define HSC_VERSION "([^"]+)"/ ? $1 : die 'no version';
};

my ($res, $b) = health();
is($res->code, 200, 'healthy: 200');
is($res->header('Content-Type'), 'application/json', 'JSON');
is($res->header('Cache-Control'), 'no-store', 'not cached');
is($b && $b->{status}, 'ok', 'status ok');
is($b && $b->{version}, $version, 'the version');
is($b && $b->{keys}, 1, 'the number of keys loaded');
like($res->content, qr/"store_ms":\d+\.\d{3}[,}]/, 'how long the store took, in ms');
ok(length($res->content) < 200, 'a short body');

# HSCHealthDetails Off (the default): the status only.
($res, $b) = health('/hsc-health-plain');
is($res->code, 200, 'without HSCHealthDetails: 200');
is($res->content, qq({"status":"ok"}\n), 'and the status only: no version, keys or timing');

# Cheap: many probes, no KDF (the histogram does not move).
my $m = sub {
    my $t = Apache::TestRequest::GET('/hsc-metrics')->content;
    return $t =~ /^hsc_kdf_seconds_count (\d+)$/m ? $1 : -1;
};
my $k0 = $m->();
my $ok = grep { (health())[0]->code == 200 } 1 .. 20;
is($ok, 20, 'twenty probes, all 200');
is($m->(), $k0, 'and not one KDF');

# The user database deleted.
unlink fault_db('opsgone');
my $gone = poll_until(5, sub { (health(Host => 'ops-gone.test'))[0]->code == 503 });
ok($gone, 'a deleted user database: 503 within a second or so (a child reuses the store\'s answer for a second)');
($res, $b) = health(Host => 'ops-gone.test');
is($b && $b->{status}, 'unavailable', 'status unavailable');
is($b && $b->{reason}, 'user store down', 'reason: the store is down');
is($res->header('Retry-After'), '5', 'Retry-After');
($res, $b) = health('/hsc-health-plain', Host => 'ops-gone.test');
is($res->code, 503, 'without HSCHealthDetails: 503 too');
is($res->content, qq({"status":"unavailable"}\n), 'and the status only');
is((health())[0]->code, 200, 'the other hosts stay healthy');

# The key file deleted (the loaded keys still work, a restart would fail).
my $kf = var_dir() . '/keys-ops';
my $saved = do { open my $fh, '<:raw', $kf or die; local $/; <$fh> };
unlink $kf or die "$kf: $!";
($res, $b) = health(Host => 'ops-nokey.test');
is($res->code, 503, 'a missing key file: 503');
is($b && $b->{reason}, 'key file missing', 'reason: key file missing');
open my $fh, '>:raw', $kf or die;
print $fh $saved;
close $fh;
chmod 0600, $kf;
is((health(Host => 'ops-nokey.test'))[0]->code, 200, 'back: 200');

is(Apache::TestRequest::POST('/hsc-health', content => 'x')->code, 405,
   'POST: 405');
ok(HSCTest::error_log_text() =~ /HSC163: health check: 503: key file missing/,
   'a refusal is logged (HSC163, info)');

# ServerTokens Full (the default here): the version component is shown.
$res = Apache::TestRequest::GET('/');
like($res->header('Server') // '', qr{ mod_hsc/\Q$version\E\b},
     "Server: ... mod_hsc/$version with ServerTokens Full");
unlike($res->header('Server') // '', qr{mod_hsc/.*mod_hsc/},
       'exactly once');
