# Lockouts the throttle table must keep.
#   flush-user.test  HSCThrottleUser 3 (address off): a user's lockout
#                    survives 400 failed logins for other usernames
#   flush-addr.test  HSCThrottleAddress 3 (username off), the address from
#                    X-Forwarded-For (mod_remoteip, trusted from
#                    127.0.0.1): an address's lockout survives 400 failed
#                    logins from other addresses; IPv6 counts by its /64
#   flood.test       HSCThrottleAddress 20, HSCMaxLoginKDF 1: an address
#                    that sent 40 logins at once is throttled afterwards,
#                    whatever each one was answered (503s count)
# All with the default cache (shmcb, 4 MB). Before the keys were spread,
# every key of a kind fell into one shmcb subcache of about 185 entries.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest ();
use IO::Socket::INET ();
use HSCTest;

plan tests => 12;

my $db = var_dir() . '/users.db';
for my $u (qw(flush-victim flush-other flood-user)) {
    admin_ok("$u-pw\n", 'add', $db, $u, '--kdf', 'sha256-chain:1000',
             '--password-stdin', '--force');
}

ua_plain();
sub try_login
{
    my ($host, $user, $pw, @h) = @_;
    return login($user, $pw, headers => [Host => $host, @h])->code;
}

# --- a user's lockout and 400 other names -----------------------------------
my $uh = 'flush-user.test';
my @c = map { try_login($uh, 'flush-victim', 'wrong') } 1 .. 4;
is("@c", '401 401 401 429', 'flush-victim is locked out after 3 failures');
my %seen;
$seen{ try_login($uh, "flush-spray-$_", 'wrong') }++ for 1 .. 400;
is(join(' ', %seen), '401 400', '400 failed logins for 400 other names');
is(try_login($uh, 'flush-victim', 'flush-victim-pw'), 429,
   'the lockout survives them: the right password is still refused');

# --- an address's lockout and 400 other addresses ---------------------------
my $ah = 'flush-addr.test';
my @xff = ('X-Forwarded-For' => '198.51.100.7');
@c = map { try_login($ah, "flush-a$_", 'wrong', @xff) } 1 .. 4;
is("@c", '401 401 401 429', '198.51.100.7 is locked out after 3 failures');
%seen = ();
for my $i (1 .. 400) {
    my $ip = sprintf '10.%d.%d.%d', $i >> 16, ($i >> 8) & 255, $i & 255;
    $seen{ try_login($ah, "flush-b$i", 'wrong', 'X-Forwarded-For' => $ip) }++;
}
is(join(' ', %seen), '401 400', '400 failed logins from 400 other addresses');
is(try_login($ah, 'flush-other', 'flush-other-pw', @xff), 429,
   'the lockout survives them: 198.51.100.7 is still refused');

# --- IPv6: one /64 is one client ---------------------------------------------
@c = map { try_login($ah, 'flush-v6', 'wrong',
                     'X-Forwarded-For' => "2001:db8:1:2::$_") } 1 .. 3;
is("@c", '401 401 401', 'three failures from three addresses of one /64');
is(try_login($ah, 'flush-other', 'flush-other-pw',
             'X-Forwarded-For' => '2001:db8:1:2:ffff:ffff:ffff:ffff'), 429,
   'a fourth address of the same /64 is locked out');
is(try_login($ah, 'flush-other', 'flush-other-pw',
             'X-Forwarded-For' => '2001:db8:1:3::1'), 303,
   'the next /64 is another client');

# --- 40 logins at once from one address ---------------------------------------
# Raw connections, each closed after its answer (under prefork the two
# children then serve them in turn). Sent all at once, read afterwards.
my ($addr, $port) = split /:/, Apache::TestRequest::hostport();
my $body = form_encode(username => 'flood-user', password => 'wrong');
my @socks = map {
    my $s = IO::Socket::INET->new(PeerAddr => $addr, PeerPort => $port,
                                  Proto => 'tcp', Timeout => 60)
        or die "connect: $!";
    $s->autoflush(1);
    print $s "POST /login HTTP/1.1\r\nHost: flood.test\r\n"
        . "Connection: close\r\n"
        . "Content-Type: application/x-www-form-urlencoded\r\n"
        . 'Content-Length: ' . length($body) . "\r\n\r\n$body";
    $s;
} 1 .. 40;
%seen = ();
for my $s (@socks) {
    my $status = <$s> // '';
    my ($code) = $status =~ m{^HTTP/\S+ (\d{3})};
    $seen{ $code // 0 }++;
    close $s;
}
diag('answers to the flood: ' . join ', ',
     map { "$seen{$_} x $_" } sort keys %seen);
is(($seen{401} // 0) + ($seen{503} // 0) + ($seen{429} // 0), 40,
   'every one was answered 401, 503 or 429');
my $after = try_login('flood.test', 'flood-user', 'flood-user-pw');
is($after, 429,
   'afterwards the address is throttled, however each was answered');
my $log = Apache::Test::vars('t_logs') . '/error_log';
my $text = do { open my $fh, '<', $log or die "$log: $!"; local $/; <$fh> };
my $busy = $seen{503} // 0;
ok($busy == 0 || $text =~ /HSC055: .*counted for the address/,
   'a 503 of the cap says it was counted');
