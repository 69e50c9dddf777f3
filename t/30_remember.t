# "Keep me signed in". Where HSCRememberMe is set the login page
# has the box; a login with it ticked gets a format 2 cookie with the rem
# bit whose expiry and Max-Age are the remembered span; unticked, or where
# HSCRememberMe is off, the box is ignored and the login is an ordinary one.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest ();
use HSCTest;

plan tests => 14;

ua_plain();
my $days30 = 30 * 86400;

my $res = Apache::TestRequest::GET('/remember-login');
is($res->code, 200, 'the login page where HSCRememberMe is set');
like($res->content,
     qr{<input name="remember" type="checkbox" value="1"> Keep me signed in},
     'has the box');
unlike(Apache::TestRequest::GET('/login')->content, qr/name="remember"/,
       'the default login page has none');

sub login_with
{
    my ($path, @extra) = @_;
    return post_form($path, form_encode(username => 'alice',
                                        password => $PW{alice}, @extra));
}

# Ticked: the rem bit (128) with pwd, 30 days whether active or not.
$res = login_with('/remember-login', remember => 1);
is($res->code, 303, 'a login with the box ticked');
my $v = cookie_from($res) // '';
my @f = cookie_fields($v);
is($f[0], '2', 'a format 2 cookie');
is($f[7], 129, 'amr pwd|rem');
is($f[4] - $f[3], $days30, 'exp = iat + HSCRememberMe');
is(attrs_of(cookie_header_for($res, 'hsc'))->{'max-age'}, $days30,
   'and Max-Age says 30 days: the browser keeps it');
$res = get_with('/private/page.html', 'hsc', $v);
is($res->code, 200, 'it opens a protected page');
is($res->header('X-HSC-AMR'), 'pwd', 'HSC_AMR names the method only');

# Unticked there, or ticked where HSCRememberMe is off: ordinary logins.
$res = login_with('/remember-login');
@f = cookie_fields(cookie_from($res) // '');
is($f[7], 1, 'unticked: amr pwd');
is($f[4] - $f[3], 1800, 'and the idle timeout');
$res = login_with('/login', remember => 1);
@f = cookie_fields(cookie_from($res) // '');
is($f[7], 1, 'ticked where HSCRememberMe is off: amr pwd');
is($f[4] - $f[3], 1800, 'the idle timeout');
