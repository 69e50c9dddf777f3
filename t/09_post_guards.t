# What a login or logout POST must pass before any password work:
# same-site origin, a form content type, a small body, a well-formed form,
# and the methods allowed.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest qw(GET POST PUT);
use HSCTest;

plan tests => 21;

ua_plain();
my $hostport = Apache::TestRequest::hostport();
my $form = form_encode(username => 'judy', password => $PW{judy});

# Cross-site: refused with 403 before the body is looked at.
my $res = login('judy', $PW{judy},
                headers => [Origin => 'http://evil.example']);
is($res->code, 403, 'login POST with a foreign Origin: 403');
ok(!defined cookie_from($res), 'and no cookie');
$res = login('judy', $PW{judy}, headers => ['Sec-Fetch-Site' => 'cross-site']);
is($res->code, 403, 'login POST with Sec-Fetch-Site: cross-site: 403');
$res = login('judy', $PW{judy}, headers => [Origin => 'null']);
is($res->code, 403, 'login POST with Origin: null: 403');
$res = login('judy', $PW{judy},
             headers => [Origin => "http://$hostport.evil.example"]);
is($res->code, 403, 'login POST with a look-alike Origin: 403');
$res = post_form('/logout', '', Origin => 'http://evil.example');
is($res->code, 403, 'logout POST with a foreign Origin: 403');

# The scheme counts: an https page of this host is another site for this
# http site, and an http page another site for an https one.
$res = login('judy', $PW{judy}, headers => [Origin => "https://$hostport"]);
is($res->code, 403, 'login POST to an http site with an https Origin: 403');
$res = login('judy', $PW{judy},
             headers => [Origin => 'http://tls-origin.test',
                         Host => 'tls-origin.test']);
is($res->code, 403, 'login POST to an https site with an http Origin: 403');
$res = login('judy', $PW{judy},
             headers => [Origin => 'https://tls-origin.test',
                         Host => 'tls-origin.test']);
is($res->code, 303, 'login POST to an https site with its own Origin: 303');
$res = login('judy', $PW{judy},
             headers => [Origin => 'https://tls-origin.test:443',
                         Host => 'tls-origin.test']);
is($res->code, 303, 'the default port 443 is the same origin');
$res = login('judy', $PW{judy},
             headers => [Origin => "http://$hostport",
                         'X-Forwarded-Proto' => 'https']);
is($res->code, 303,
   'X-Forwarded-Proto from a client no proxy vouches for is ignored');

# Same site: accepted.
$res = login('judy', $PW{judy},
             headers => [Origin => "http://$hostport",
                         'Sec-Fetch-Site' => 'same-origin']);
is($res->code, 303, 'login POST with this Origin: 303');

# Body size: 8 KiB at most.
$res = post_form('/login', $form . '&pad=' . ('x' x 9000));
is($res->code, 413, 'a 9 KB login body: 413');
ok(!defined cookie_from($res), 'and no cookie');
$res = post_form('/login', $form . '&pad=' . ('x' x 7000));
is($res->code, 303, 'a 7 KB login body is read');

# Content type and form syntax.
$res = POST '/login', 'Content-Type' => 'text/plain', content => $form;
is($res->code, 415, 'text/plain body: 415');
$res = POST '/login', 'Content-Type' => 'multipart/form-data; boundary=x',
    content => $form;
is($res->code, 415, 'multipart body: 415');
$res = post_form('/login', 'username=judy&password=%zz');
is($res->code, 400, 'bad percent escape: 400');
$res = post_form('/login', 'username=judy&username=bob&password=x');
is($res->code, 400, 'repeated field: 400');

# Methods.
$res = PUT '/login', content => $form;
is($res->code, 405, 'PUT /login: 405');
like($res->header('Allow') // '', qr/POST/, 'Allow lists POST');
