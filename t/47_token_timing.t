# An app password whose id exists but whose secret is wrong, and one whose
# id does not exist, must not be told apart by a client: the same status,
# body and headers (Bearer, Basic with HSCAcceptTokens, and AuthBasicProvider
# hsc), and the same time. Only the server's log line says which it was
# (HSC230 "wrong secret" or "no such app password"). Both are well formed
# (check digits right), so both reach the store lookup.
#
# Timing as t/22_login_timing.t does it on a loaded 2-core machine: the
# two kinds taken in turn on one kept-alive connection, 80 of each, and
# their medians compared within 10% (+1 ms; 30% under the sanitizers),
# then how often one kind is slower than the other's median: neither
# always nor never.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest qw(GET);
use Digest::SHA qw(sha256_hex);
use MIME::Base64 qw(encode_base64);
use Time::HiRes qw(time);
use HSCTest;

plan tests => 12;

ua_plain();
my $db = var_dir() . '/users.db';
admin_ok("tt-pw-1\n", 'add', $db, 'tt-owner', '--kdf', 'sha256-chain:1000',
         '--password-stdin', '--force');
my ($rc, $out) = admin('token', 'add', $db, 'tt-owner', '--name', 'timing');
die "hsc-admin token add: $out\n"
    unless $rc == 0 && $out =~ /(hsc_[a-z2-7]{16}_[a-z2-7]{52}_[0-9a-f]{8})/;
my $good = $1;

# A token text with this id and secret and right check digits.
my @b32 = ('a' .. 'z', 2 .. 7);
sub rand_b32 { return join '', map { $b32[int rand 32] } 1 .. $_[0] }
sub token_text
{
    my ($id, $secret) = @_;
    my $head = "hsc_${id}_${secret}_";
    return $head . substr(sha256_hex($head =~ s/_$//r), 0, 8);
}
# 32 bytes are 52 base32 characters with 4 bits left over, which must be 0.
sub rand_secret { return rand_b32(51) . ('a', 'q')[int rand 2] }
my $id = substr($good, 4, 16);
my $wrong_secret = token_text($id, rand_secret());
my $unknown_id = token_text(rand_b32(16), rand_secret());
is(GET('/tok-both/page.html', Authorization => "Bearer $good")->code, 200,
   'the real app password opens /tok-both');
isnt($wrong_secret, $good, 'the wrong secret differs from the real one');

# Everything a client sees but the date and the connection's own headers.
sub seen
{
    my ($res) = @_;
    my $h = $res->headers->clone;
    $h->remove_header($_) for qw(Date Keep-Alive Connection Client-Date
                                 Client-Peer Client-Response-Num);
    return join "\n", $res->code, $h->as_string, $res->content;
}
sub basic { 'Basic ' . encode_base64("tt-owner:$_[0]", '') }
my $log_at = log_size();
for my $case (['Bearer', '/tok-both/page.html', sub { "Bearer $_[0]" }],
              ['Basic', '/tok-both/page.html', \&basic],
              ['AuthBasicProvider hsc', '/tok-provider/page.html', \&basic]) {
    my ($what, $path, $auth) = @$case;
    my $a = GET($path, Authorization => $auth->($wrong_secret));
    my $b = GET($path, Authorization => $auth->($unknown_id));
    is($a->code, 401, "$what: a wrong secret gets 401");
    is(seen($a), seen($b),
       "$what: an unknown id gets the same status, headers and body");
}
my $log = log_since($log_at);
like($log, qr/HSC230: app password refused: wrong secret \(id \Q$id\E/,
     'the log says which: a wrong secret (HSC230)');
like($log, qr/HSC230: app password refused: no such app password \(id /,
     'and an unknown id (HSC230)');

sub took
{
    my ($text) = @_;
    my $t0 = time;
    my $res = GET('/tok-both/page.html', Authorization => "Bearer $text");
    my $t = time - $t0;
    die 'expected 401, got ' . $res->code . "\n" unless $res->code == 401;
    return $t;
}
sub median { my @s = sort { $a <=> $b } @_; return $s[@s / 2] }
my (%t, $n);
took($wrong_secret), took($unknown_id) for 1 .. 5;    # warm both paths
for my $i (1 .. 80) {
    # In turn, the first of each pair alternating, so that neither kind
    # always follows the other.
    my @order = $i % 2 ? qw(wrong unknown) : qw(unknown wrong);
    for my $k (@order) {
        push @{ $t{$k} }, took($k eq 'wrong' ? $wrong_secret
                                   : token_text(rand_b32(16), rand_secret()));
    }
}
my %m = map { $_ => median(@{ $t{$_} }) } keys %t;
diag(sprintf '%s: median %.3f ms', $_, 1000 * $m{$_}) for sort keys %m;
my $tol = $ENV{HSC_SANITIZERS} ? 0.3 : 0.1;
ok(abs($m{wrong} - $m{unknown}) <= $tol * $m{unknown} + 0.001,
   sprintf('a wrong secret is refused in the time of an unknown id '
           . '(%.2f vs %.2f ms, 80 tries each)',
           1000 * $m{wrong}, 1000 * $m{unknown}));
my $slower = grep { $_ > $m{unknown} } @{ $t{wrong} };
ok($slower > 0.15 * 80 && $slower < 0.85 * 80,
   "a wrong secret is slower than the unknown ids' median in $slower of 80 "
   . 'tries (neither always nor never)');
