#!/usr/bin/perl
# hsc-load.pl: send one GET per cookie, each of the first N lines of a
# cookie file ("hsc=<value>", as bench/bench_users writes it) once, in file
# order, over C keep-alive connections with up to D requests pipelined on
# each, and print how many answers had each status ("200=99998 401=2").
# A connection the server closes (the event MPM closes idle keep-alive
# connections when all its threads are busy) is opened again and its
# unanswered requests sent again. Exits 1 on any other error. Plain Perl, no modules
# beyond core: the load of test/rss/child-rss.sh (and bench/rss-rows.sh),
# where wrk may not be installed.
#
# With STRIDE, only every STRIDE-th of the N lines (1st, 1+STRIDE, ...).
#
# Usage: hsc-load.pl HOST PORT PATH COOKIEFILE N [CONNECTIONS [DEPTH [STRIDE]]]
use strict;
use warnings;
use IO::Socket::INET;
use IO::Select;
use Socket qw(IPPROTO_TCP TCP_NODELAY);

my ($host, $port, $path, $file, $n, $conns, $depth, $stride) = @ARGV;
die "usage: $0 HOST PORT PATH COOKIEFILE N [CONNECTIONS [DEPTH [STRIDE]]]\n"
    unless defined $n;
$conns  ||= 25;
$depth  ||= 16;
$stride ||= 1;

open my $fh, '<', $file or die "hsc-load: $file: $!\n";
my @cookies;
my $lines = 0;
while ($lines < $n && defined(my $l = <$fh>)) {
    chomp $l;
    push @cookies, $l if $lines++ % $stride == 0;
}
close $fh;
die "hsc-load: $file has only $lines lines\n" if $lines < $n;
$n = @cookies;

my $next = 0;    # next cookie to send
my @again;       # cookies to send again (their connection was closed)
my %status;
my $sel = IO::Select->new;
my %c;           # fileno -> { sock, in, pending }

sub fill {
    my ($st) = @_;
    my $out = '';
    while ($st->{pending} < $depth && (@again || $next < $n)) {
        my $i = @again ? shift @again : $next++;
        $out .= "GET $path HTTP/1.1\r\nHost: $host\r\n"
              . "Cookie: $cookies[$i]\r\n\r\n";
        push @{ $st->{sent} }, $i;
        $st->{pending}++;
    }
    while (length $out) {
        my $w = syswrite($st->{sock}, $out);
        return unless defined $w;    # closed: the read side says so
        substr($out, 0, $w, '');
    }
}

sub connect_one {
    my $s = IO::Socket::INET->new(PeerAddr => $host, PeerPort => $port,
                                  Proto => 'tcp')
        or die "hsc-load: connect $host:$port: $!\n";
    setsockopt($s, IPPROTO_TCP, TCP_NODELAY, 1);
    my $st = { sock => $s, in => '', pending => 0, sent => [] };
    $c{ fileno $s } = $st;
    $sel->add($s);
    fill($st);
}

$SIG{PIPE} = 'IGNORE';
connect_one() for 1 .. $conns;
my $reopened = 0;

my $done = 0;
while ($done < $n) {
    my @ready = $sel->can_read(30) or die "hsc-load: no answer for 30 s\n";
    for my $s (@ready) {
        my $st = $c{ fileno $s };
        my $r = sysread($s, $st->{in}, 65536, length $st->{in});
        if (!$r) {    # closed (or reset): send its requests again
            push @again, @{ $st->{sent} };
            $sel->remove($s);
            delete $c{ fileno $s };
            close $s;
            die "hsc-load: the server keeps closing connections\n"
                if ++$reopened > 10 * $conns + $n / 100;
            connect_one();
            next;
        }
        # Take every whole answer (headers + Content-Length body).
        while ($st->{pending}) {
            my $h = index($st->{in}, "\r\n\r\n");
            last if $h < 0;
            my $head = substr($st->{in}, 0, $h);
            my ($code) = $head =~ m{^HTTP/1\.\d (\d{3})}
                or die "hsc-load: not an HTTP answer\n";
            my ($len) = $head =~ /\r\nContent-Length:\s*(\d+)/i;
            $len //= 0;
            last if length($st->{in}) < $h + 4 + $len;
            substr($st->{in}, 0, $h + 4 + $len, '');
            $status{$code}++;
            shift @{ $st->{sent} };
            $st->{pending}--;
            $done++;
        }
        fill($st);
    }
}
close $_->{sock} for values %c;
print join(' ', map {"$_=$status{$_}"} sort keys %status), "\n";
exit 0;
