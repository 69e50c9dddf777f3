# Hostile return values never leave the site: a login with any of them goes
# to HSCLoginSuccessURL, and the login page does not carry them.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest qw(GET);
use HSCTest;

my @hostile = (
    '//evil.example',
    '//evil.example/path',
    '///evil.example',
    '/\\evil.example',
    '\\\\evil.example',
    'https://evil.example',
    'http://evil.example/',
    'HTTPS://evil.example',
    'javascript:alert(1)',
    'evil.example',
    '/%2F%2Fevil.example',
    '/%2f%2fevil.example',
    '/%2Fevil.example',
    '/%5Cevil.example',
    '/%2F%5Cevil.example',
    '/%252F%252Fevil.example',
    '/..//evil.example',
    '/.//evil.example',
    '/%2e%2e//evil.example',
    "/\t/evil.example",
    "/\r\nSet-Cookie: x=1",
    "/\nLocation: //evil.example",
    "/a\rb",
    '/%0D%0ASet-Cookie:%20x=1',
    "/ /evil.example",
    "/caf\xc3\xa9",
    '',
    # Encoded '/', '\\' or '.' anywhere in the path: one decoding
    # away from "/..//evil.example"; t/25_inputs.t has more.
    '/a/%2F/b',
);
my @safe = (
    '/private/page.html',
    '/private/page.html?x=1&y=%2F%2F',
    '/a/b%20c?d=%2e%2e',
);

plan tests => 2 * @hostile + 2 * @safe + 2;

ua_plain();

for my $ret (@hostile) {
    (my $show = $ret) =~ s/([^\x21-\x7e])/sprintf('\\x%02x', ord $1)/ge;
    my $res = login('heidi', $PW{heidi}, return => $ret);
    is($res->header('Location'), '/', "login with return '$show' goes to /");
    $res = GET '/login?' . form_encode(return => $ret);
    is(html_field($res->content, 'return'), '',
       "login page drops return '$show'");
}
for my $ret (@safe) {
    my $res = login('heidi', $PW{heidi}, return => $ret);
    is($res->header('Location'), $ret, "login with return '$ret' goes there");
    $res = GET '/login?' . form_encode(return => $ret);
    (my $esc = $ret) =~ s/&/&amp;/g;
    is(html_field($res->content, 'return'), $esc,
       "login page carries return '$ret'");
}

# A failed login keeps only a safe return in its form.
my $res = login('heidi', 'wrong', return => '//evil.example');
is(html_field($res->content, 'return'), '',
   'failed login drops a hostile return');
$res = login('heidi', 'wrong', return => '/private/page.html');
is(html_field($res->content, 'return'), '/private/page.html',
   'failed login keeps a safe return');
