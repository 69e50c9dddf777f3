# Many requests at once, on every worker thread and process, while
# hsc-admin writes to the user table: every request with a valid cookie is
# answered 200 (per-thread store handles, no shared lock, no 500 while a
# writer holds the database), and the change is seen once it is made.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest qw(GET);
use HSCTest;

plan tests => 6;

ua_plain();
my $db = var_dir() . '/users.db';
my $v = cookie_from(login('judy', $PW{judy}));
ok(defined $v, 'judy logs in');

my ($clients, $each) = (8, 25);
my $log_from = log_size();
my @pids;
pipe my $rd, my $wr or die "pipe: $!";
for my $n (1 .. $clients) {
    my $pid = fork;
    die "fork: $!" unless defined $pid;
    if (!$pid) {
        close $rd;
        # A new connection per request. With keep-alive, the event MPM
        # closes idle kept-alive connections whenever all of a child's
        # workers are busy (as they are here); a client that sends on one at
        # that moment gets no answer, and LWP makes up a 500 for it. That is
        # the MPM's documented behaviour, not the module's, and browsers
        # retry it; this test is about the module.
        ua_plain(keep_alive => 0);
        my (%codes, @odd);
        for (1 .. $each) {
            my $path = $_ % 2 ? '/private/page.html' : '/staff/page.html';
            my $res = get_with($path, 'hsc', $v);
            $codes{ $res->code }++;
            push @odd, answer_detail($res) if $res->code != 200;
        }
        print {$wr} join(',', map { "$_=$codes{$_}" } sort keys %codes),
            (@odd ? " [$odd[0]]" : ''), "\n";
        close $wr;
        exit 0;
    }
    push @pids, $pid;
}
close $wr;

# Meanwhile, an administrator changes another user's groups, again and
# again (each change is a write transaction on the same database).
my $writes_ok = 0;
for my $i (1 .. 10) {
    my ($rc) = admin('groups', $db, 'heidi', $i % 2 ? 'staff' : '');
    $writes_ok++ if $rc == 0;
}
my @results = <$rd>;
waitpid $_, 0 for @pids;
chomp @results;

is($writes_ok, 10, 'every hsc-admin write succeeded during the load');
is(scalar @results, $clients, 'every client reported');
is_deeply([grep { $_ ne "200=$each" } @results], [],
          "all ${\ ($clients * $each)} concurrent requests were 200");
# The worker MPM says at "error" level when its threads are all busy
# (AH00286, AH00287): a capacity note about this loaded machine, not a fault.
my @bad = grep { /\[(?:\w+:)?(?:error|crit|alert|emerg)\]|exit signal/
                 && !/\[mpm_\w+:error\] .*AH0028[67]:/ }
    split /\n/, log_since($log_from);
is_deeply(\@bad, [], 'and the error log has no error line from the load');

# judy leaves staff: the next request sees it.
admin('groups', $db, 'judy', '');
is(get_with('/staff/page.html', 'hsc', $v)->code, 403,
   'a group change is seen on the next request');
