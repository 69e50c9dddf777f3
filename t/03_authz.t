# Authorization: Require user, Require hsc-group, RequireAny, RequireAll,
# and subrequests (mod_include) that reuse the main request's verdict.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest qw(GET);
use HSCTest;

plan tests => 19;

ua_plain();

my %c;
for my $u (qw(alice bob judy heidi)) {
    my $res = login($u, $PW{$u});
    $c{$u} = cookie_from($res);
    ok(defined $c{$u}, "$u logs in");
}

# (path, user, expected status)
my @cases = (
    ['/staff/page.html',    'bob',   200],
    ['/staff/page.html',    'heidi', 403],
    ['/admins/page.html',   'alice', 200],
    ['/admins/page.html',   'bob',   403],
    ['/only-bob/page.html', 'bob',   200],
    ['/only-bob/page.html', 'alice', 403],
    ['/any/page.html',      'alice', 200],  # admins
    ['/any/page.html',      'bob',   403],  # neither carol nor admins
    ['/all/page.html',      'judy',  200],  # staff and not bob
    ['/all/page.html',      'bob',   403],  # staff but bob
    ['/all/page.html',      'heidi', 403],  # not staff
);
for my $case (@cases) {
    my ($path, $user, $want) = @$case;
    my $res = get_with($path, 'hsc', $c{$user});
    is($res->code, $want, "$path as $user: $want");
}

# Subrequests: the include of /private/page.html and /staff/page.html.
my $res = get_with('/private/ssi/inc.shtml', 'hsc', $c{bob});
like($res->content, qr{page private\s+page staff},
     'SSI subrequests reuse the verdict (staff member)');
$res = get_with('/private/ssi/inc.shtml', 'hsc', $c{heidi});
like($res->content, qr{page private\s+\[an error occurred},
     'SSI subrequest to a group page is refused for a non-member');
$res = GET '/private/ssi/inc.shtml';
is($res->code, 401, 'SSI page without a cookie: 401');

# Without a user at all, hsc-group pages are 401, not 403.
$res = GET '/staff/page.html';
is($res->code, 401, 'group page without a cookie: 401');
