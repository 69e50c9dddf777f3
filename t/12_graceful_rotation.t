# A graceful restart keeps every cookie valid, and the key rotation an
# administrator does: `hsc-admin keygen` puts a new first key into the key
# file, a graceful restart makes it sign, old cookies still verify; once the
# old key's line is deleted and httpd restarted again, they are refused.
# It changes t/var/keys (remade for every run): later files log in afresh.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest qw(GET);
use HSCTest;

plan tests => 12;

ua_plain();
my $page = '/private/page.html';
my $var = var_dir();
my $pidfile = Apache::Test::vars('t_pid_file');
my $errlog = Apache::Test::vars('t_logs') . '/error_log';

# Count of "resuming normal operations" lines: one more per restart.
sub generations
{
    open my $fh, '<', $errlog or return 0;
    return scalar grep { /resuming normal operations/ } <$fh>;
}

# The live children of process PPID (read from /proc: no procps needed).
sub children_of
{
    my ($ppid) = @_;
    my @kids;
    opendir my $dh, '/proc' or return ();
    for my $pid (grep { /^\d+$/ } readdir $dh) {
        open my $fh, '<', "/proc/$pid/stat" or next;
        my $stat = <$fh> // '';
        # "pid (comm) state ppid ...": comm may hold spaces, so split after ')'.
        my ($state, $parent) = $stat =~ /\)\s+(\S)\s+(\d+)/ or next;
        push @kids, $pid if $parent == $ppid && $state ne 'Z';
    }
    return @kids;
}

# Graceful restart (SIGUSR1 to the parent) and wait until it has finished:
# the new generation is up and every child of the old one has exited. Old
# children keep serving their open connections, and on a loaded machine
# one may still take a new connection just after the restart line is
# logged; so the test waits for them rather than for a fixed time.
sub graceful
{
    my $before = generations();
    open my $fh, '<', $pidfile or die "$pidfile: $!";
    chomp(my $pid = <$fh>);
    my %old = map { $_ => 1 } children_of($pid);
    kill 'USR1', $pid or die "kill USR1 $pid: $!";
    for (1 .. 200) {
        last if generations() > $before;
        select undef, undef, undef, 0.1;
    }
    # Drop our kept-alive connection, which holds an old child.
    ua_plain();
    for (1 .. 300) {
        last unless grep { $old{$_} } children_of($pid);
        select undef, undef, undef, 0.1;
    }
    my @left = grep { $old{$_} } children_of($pid);
    diag "old children still running: @left" if @left;
    return generations() > $before && !@left;
}

my $old = cookie_from(login('alice', $PW{alice}));
is((cookie_fields($old))[1], 'k1', 'a cookie signed with k1');
is(get_with($page, 'hsc', $old)->code, 200, 'it works');

ok(graceful(), 'graceful restart done');
is(get_with($page, 'hsc', $old)->code, 200,
   'the cookie survives a graceful restart');

# Rotation: a new first key, then a graceful restart.
my ($rc, $out) = admin('keygen', "$var/keys", '--kid', 'k3');
is($rc, 0, 'hsc-admin keygen rotates the key file') or diag $out;
ok(graceful(), 'graceful restart after the rotation');
my $new = cookie_from(login('alice', $PW{alice}));
is((cookie_fields($new // ''))[1], 'k3', 'new logins are signed with k3');
is(get_with($page, 'hsc', $new)->code, 200, 'the new cookie works');
is(get_with($page, 'hsc', $old)->code, 200,
   'the k1 cookie still works while k1 is in the file');

# Retire k1: delete its line, restart.
open my $in, '<', "$var/keys" or die "$var/keys: $!";
my $text = join '', grep { !/^k1 / } <$in>;
close $in;
HSCTest::spew("$var/keys", $text);
ok(graceful(), 'graceful restart after retiring k1');
is(get_with($page, 'hsc', $old)->code, 401, 'the k1 cookie is refused now');
is(get_with($page, 'hsc', $new)->code, 200, 'the k3 cookie still works');
