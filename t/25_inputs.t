# The session cookie in a second Cookie header line, and
# return targets with encoded dot segments and slashes.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest ();
use HSCTest;

my @targets = (
    '/%2e%2e%2f%2fevil.example',
    '/%2E%2E%2F%2Fevil.example',
    '/x/%2e%2e%2f%2fevil.example',
    '/%2e%2e%5c%5cevil.example',
    '/x/..%2f%2fevil.example',
    '/%252e%252e%252f%252fevil.example',
    '/%2fevil.example',
);
plan tests => 4 + 3 * @targets + 3;

my $db = var_dir() . '/users.db';
admin_ok("in-pw\n", 'add', $db, 'in-user', '--kdf', 'sha256-chain:1000',
         '--password-stdin', '--force');
ua_plain();
my $c = cookie_from(login('in-user', 'in-pw'));

# Two Cookie lines: httpd joins them with ", ", and a browser or proxy may
# send the session cookie in the second.
my $res = Apache::TestRequest::GET('/private/page.html',
                                   Cookie => 'theme=dark; lang=en',
                                   Cookie => "hsc=$c");
is($res->code, 200, 'the session cookie in a second Cookie line is found');
is($res->header('X-HSC-User'), 'in-user', 'and verified');
$res = Apache::TestRequest::GET('/private/page.html',
                                Cookie => "hsc=$c", Cookie => 'theme=dark');
is($res->code, 200, 'in the first of two lines too');
$res = Apache::TestRequest::GET('/private/page.html', Cookie => "hsc=$c",
                                Cookie => 'hsc=planted-by-a-sibling');
isnt($res->code, 200, 'two of ours in two lines are two: refused');

# Encoded dot segments and slashes: no redirect to them, ever.
for my $t (@targets) {
    my $r = login('in-user', 'in-pw', return => $t);
    is($r->code, 303, "login with return=$t");
    is($r->header('Location'), '/', "goes to the success URL, not $t");
    my $page = Apache::TestRequest::GET('/login?return=' . uri_escape($t));
    unlike($page->content, qr/evil\.example/,
           "the login page does not carry $t");
}

sub uri_escape
{
    my ($s) = @_;
    $s =~ s/([^A-Za-z0-9_.~-])/sprintf('%%%02X', ord $1)/ge;
    return $s;
}

# TRACE: httpd's core echoes the request, cookie included, before any
# module runs, which hands an HttpOnly cookie to a script. TraceEnable Off
# (the sample configuration, notrace.test here) answers 405.
my $trace = sub {
    my ($host) = @_;
    my $req = HTTP::Request->new('TRACE',
        Apache::TestRequest::resolve_url('/private/page.html'));
    $req->header(Host => $host, Cookie => "hsc=$c");
    return Apache::TestRequest::user_agent()->request($req);
};
like($trace->('localhost')->content, qr/\Q$c\E/,
     'with TraceEnable On (the default) TRACE echoes the cookie');
my $off = $trace->('notrace.test');
is($off->code, 405, 'with TraceEnable Off: 405');
unlike($off->content, qr/\Q$c\E/, 'and no echo of the cookie');
