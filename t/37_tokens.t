# App passwords. Tokens made by hsc-admin open the locations
# that take them (HSCAcceptTokens Bearer, Basic, Both) and no other;
# a 401 says which schemes a location takes (WWW-Authenticate); a token
# needs every HSCTokenScope of its location (403, insufficient_scope);
# Require hsc-group sees its owner's groups and Require hsc-factor is
# never met by one; a Basic name must be the owner; a revoked or expired
# token, a disabled owner, a wrong secret with good check digits all
# fail; refusals count for the address (429 + Retry-After);
# AuthBasicProvider hsc; git clones over plain http with a token and curl
# sends one as Bearer; using tokens writes nothing to users.db (the
# record caches are not emptied) and their last use lands in
# HSCActivityDB. Users yara (staff) and zack are this file's.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest qw(GET);
use Digest::SHA qw(sha256_hex);
use File::Path qw(make_path remove_tree);
use MIME::Base64 qw(encode_base64);
use HSCTest;

plan tests => 65;

ua_plain();
my $db = var_dir() . '/users.db';
my $hostport = Apache::TestRequest::hostport();
my $tok_re = qr/(hsc_[a-z2-7]{16}_[a-z2-7]{52}_[0-9a-f]{8})/;

sub token_add
{
    my ($user, $name, @more) = @_;
    my ($rc, $out) = admin('token', 'add', $db, $user, '--name', $name, @more);
    die "hsc-admin token add $user $name: exit $rc: $out\n"
        unless $rc == 0 && $out =~ $tok_re;
    return $1;
}
sub id_of { return substr($_[0], 4, 16) }
sub bearer { return GET($_[0], Authorization => "Bearer $_[1]", @_[2 .. $#_]) }
sub basic
{
    my ($path, $user, $secret) = @_;
    return GET($path, Authorization => 'Basic '
               . encode_base64("$user:$secret", ''));
}

my $t_z = token_add('zack', 'laptop');
my $t_dav = token_add('yara', 'calendar', '--scopes', 'dav');
my $t_admin = token_add('yara', 'admin', '--scopes', 'dav,admin');
my $t_git = token_add('yara', 'ci', '--scopes', 'git');

# --- where a token is taken, and what a 401 says --------------------------
my $res = bearer('/tok-bearer/page.html', $t_z);
is($res->code, 200, 'Bearer: a token opens a location with HSCAcceptTokens Bearer');
is($res->header('X-User'), 'zack', 'as its owner (HSC_USER)');
is($res->header('X-Token'), id_of($t_z), 'HSC_TOKEN_ID names the token');
is($res->header('X-AMR'), 'app-password', 'HSC_AMR says app-password');
like($res->header('Cache-Control') // '', qr/private|no-store/,
     'the answer is private to the user');

$res = GET('/tok-bearer/page.html', Accept => '*/*');
is($res->code, 401, 'no credentials: 401');
like(join(' | ', $res->header('WWW-Authenticate')), qr/^Bearer realm="/,
     'a Bearer challenge');
$res = GET('/tok-basic/page.html', Accept => '*/*');
is(join(' | ', $res->header('WWW-Authenticate')),
   'Basic realm="Calendar", charset="UTF-8"',
   'Basic challenge with the AuthName and charset, so DAV and git clients ask');
$res = GET('/tok-both/page.html', Accept => '*/*');
is(scalar(() = $res->header('WWW-Authenticate')), 2, 'Both: two challenges');

is(basic('/tok-basic/page.html', 'zack', $t_z)->code, 200,
   'Basic with the owner\'s name and the token');
is(basic('/tok-basic/page.html', 'yara', $t_z)->code, 401,
   'Basic with another user\'s name: 401');
is(basic('/tok-basic/page.html', 'zack', $PW{zack})->code, 401,
   'the account password over Basic: 401');
is(bearer('/tok-basic/page.html', $t_z)->code, 401,
   'Bearer where only Basic is taken: 401');
is(bearer('/tok-off/page.html', $t_z)->code, 401,
   'a location without HSCAcceptTokens ignores tokens');
is(basic('/tok-both/page.html', 'zack', $t_z)->code
   . ' ' . bearer('/tok-both/page.html', $t_z)->code, '200 200',
   'Both takes either');

# A wrong secret with good check digits reaches the store and fails there.
my $sec = substr($t_z, 21, 52);
substr($sec, 10, 1) = substr($sec, 10, 1) eq 'a' ? 'b' : 'a';
my $body = 'hsc_' . id_of($t_z) . "_$sec";
my $forged = $body . '_' . substr(sha256_hex($body), 0, 8);
my $off = log_size();
is(bearer('/tok-bearer/page.html', $forged)->code, 401,
   'a wrong secret with good check digits: 401');
like(log_since($off), qr/HSC230.*app password refused: wrong secret/,
     'logged as a wrong secret (HSC230)');
unlike(log_since($off), qr/\Q$sec\E|\Q$t_z\E/, 'the log holds no secret');
$off = log_size();
is(bearer('/tok-bearer/page.html', substr($t_z, 0, 81) . 'x')->code, 401,
   'bad check digits: 401');
like(log_since($off), qr/HSC230.*check digits/, 'refused before any lookup');

# --- scopes, groups, factors --------------------------------------------
$res = bearer('/tok-dav/page.html', $t_z);
is($res->code, 403, 'HSCTokenScope dav: a token without it gets 403');
is($res->header('WWW-Authenticate'),
   'Bearer error="insufficient_scope", scope="dav"',
   'with RFC 6750\'s insufficient_scope naming the scope');
is(bearer('/tok-dav/page.html', $t_dav)->code, 200, 'the dav token opens it');
$res = bearer('/tok-dav/admin/page.html', $t_dav);
is($res->code . ' ' . ($res->header('WWW-Authenticate') // ''),
   '403 Bearer error="insufficient_scope", scope="admin"',
   'a nested section adds its scope: dav alone is not enough');
is(bearer('/tok-dav/admin/page.html', $t_admin)->code, 200,
   'dav,admin opens it');
is(bearer('/tok-staff/page.html', $t_dav)->code, 200,
   'Require hsc-group staff: yara\'s token (her groups)');
is(bearer('/tok-staff/page.html', $t_z)->code, 401,
   'zack is in no group: refused (401, httpd\'s answer to a failed Require)');
isnt(bearer('/tok-factor/page.html', $t_z)->code, 200,
     'Require hsc-factor 2 is never met by a token');

# --- AuthBasicProvider hsc ------------------------------------------------
is(basic('/tok-provider/page.html', 'zack', $t_z)->code, 200,
   'AuthType Basic + AuthBasicProvider hsc takes a token');
$res = basic('/tok-provider/page.html', 'zack', 'hunter2');
is($res->code, 401, 'and refuses anything else');
is($res->header('WWW-Authenticate'), 'Basic realm="Provider"',
   'with mod_auth_basic\'s challenge');

# --- revocation, expiry, a disabled owner --------------------------------
my ($rc, $out) = admin('token', 'revoke', $db, 'zack', id_of($t_z));
is($rc, 0, 'hsc-admin token revoke') or diag $out;
is(bearer('/tok-bearer/page.html', $t_z)->code, 401,
   'a revoked token: 401 on the next request');
my $t_exp = token_add('zack', 'short');
is(bearer('/tok-bearer/page.html', $t_exp)->code, 200, 'a new token works');
system('sqlite3', $db, "UPDATE hsc_tokens SET expires = strftime('%s','now') "
       . "- 1 WHERE id = '" . id_of($t_exp) . "'") == 0 or die "sqlite3";
HSCTest::fix_owner();
is(bearer('/tok-bearer/page.html', $t_exp)->code, 401,
   'past its expiry: 401');
my $t_z2 = token_add('zack', 'phone');
admin_ok(undef, 'disable', $db, 'zack');
is(bearer('/tok-bearer/page.html', $t_z2)->code, 401,
   'a disabled owner\'s token: 401');
admin_ok(undef, 'enable', $db, 'zack');
is(bearer('/tok-bearer/page.html', $t_z2)->code, 200,
   'enabled again: the token works (it was never revoked)');

# --- the throttle ---------------------------------------------------------
my @codes = map { bearer('/tok-bearer/page.html', $forged,
                         Host => 'tokens-throttle.test')->code } 1 .. 4;
is("@codes", '401 401 401 429',
   'refused tokens count for the address (HSCThrottleAddress 3)');
$res = bearer('/tok-bearer/page.html', $forged, Host => 'tokens-throttle.test');
ok(($res->header('Retry-After') // 0) > 0, 'the 429 has a Retry-After');
is(bearer('/tok-bearer/page.html', $t_z2, Host => 'tokens-throttle.test')->code,
   200, 'a good token is never throttled (only failures are counted)');

# --- nothing is written to users.db; the last use is recorded -----------
sub cache_clears
{
    my %c;
    for (1 .. 30) {
        my $s = GET('/hsc-cache-status')->content // '';
        $c{$1} = $2 if $s =~ /pid=(\d+).*\bclears=(\d+)/s;
    }
    return \%c;
}
# A connection held open across the requests: its PRAGMA data_version
# moves when any other connection commits to users.db (a checkpoint, as a
# closing child makes one, is no commit and moves nothing).
my $dv = var_dir() . '/data_version.txt';
open my $sq, '|-', "env -u LD_PRELOAD -u ASAN_OPTIONS sqlite3 '$db' >'$dv'"
    or die "sqlite3: $!";
$sq->autoflush(1);
print $sq "PRAGMA data_version;\n";
select undef, undef, undef, 0.5; # sqlite3 reads it before the requests
my $c0 = cache_clears();
my $ok = 1;
$ok &&= bearer('/tok-bearer/page.html', $t_z2)->code == 200 for 1 .. 30;
ok($ok, 'thirty requests with a token');
my $c1 = cache_clears();
print $sq "PRAGMA data_version;\n";
close $sq;
my @versions = split /\n/, HSCTest::slurp($dv);
ok(@versions == 2 && $versions[0] eq $versions[1],
   'nothing was committed to users.db meanwhile (PRAGMA data_version)')
    or diag "data_version: @versions";
my @same = grep { exists $c1->{$_} } keys %$c0;
ok(@same && !grep({ $c0->{$_} != $c1->{$_} } @same),
   'hsc-cache-status: no child emptied its record cache ('
   . scalar(@same) . ' children seen twice)')
    or diag explain [$c0, $c1];
my $act = var_dir() . '/activity.db';
my $row = `sqlite3 '$act' "SELECT last_at || ' ' || last_addr FROM hsc_token_activity WHERE id = '@{[id_of($t_z2)]}'" 2>&1`;
chomp $row;
my ($at, $addr) = split / /, $row;
ok(defined $at && $at =~ /^\d+$/ && abs($at - time) < 120,
   "HSCActivityDB has the token's last use ($row)");
is($addr, '127.0.0.1', 'and the address it came from');

# --- the account page: list, make, revoke ----------------------------------
my $yc = cookie_from(login('yara', $PW{yara}));
ok($yc, 'yara signs in');
$res = get_with('/account', 'hsc', $yc);
like($res->content, qr{<h2[^>]*>App passwords</h2>}, 'the account page has an app-password section');
ok($res->content =~ m{<td>calendar</td><td>dav</td>}
   && $res->content =~ m{<td>ci</td><td>git</td>}
   && $res->content =~ m{<td>admin</td><td>dav,admin</td>},
   'listing her live tokens with their scopes');
unlike($res->content, qr{\Q$t_dav\E|\Q@{[substr($t_dav, 21, 52)]}\E},
       'never a secret');
$res = post_form('/account', form_encode(action => 'token-new',
                 token_name => 'phone', token_scopes => 'dav',
                 token_expires => '30d'), Cookie => "hsc=$yc");
is($res->code, 200, 'a recent login makes an app password');
my ($made) = ($res->content // '') =~ $tok_re;
ok($made, 'the page shows it once');
like($res->header('Cache-Control') // '', qr/no-store/, 'not to be stored');
is(bearer('/tok-dav/page.html', $made)->code, 200,
   'it works, with the scope asked for');
is(post_form('/account', form_encode(action => 'token-new',
             token_name => 'phone'), Cookie => "hsc=$yc")->code, 400,
   'a second live one of that name: 400');
is(post_form('/account', form_encode(action => 'token-new',
             token_name => 'x', token_scopes => 'Bad Scope'),
             Cookie => "hsc=$yc")->code, 400, 'bad scopes: 400');
$res = post_form('/account', form_encode(action => 'token-revoke',
                 token_id => id_of($made)), Cookie => "hsc=$yc");
is($res->code, 303, 'revoked from the page');
is(bearer('/tok-dav/page.html', $made)->code, 401, 'and it stops working');
is(post_form('/account', form_encode(action => 'token-revoke',
             token_id => id_of($t_z2)), Cookie => "hsc=$yc")->code, 400,
   'another user\'s token cannot be revoked from her page');
is(bearer('/tok-bearer/page.html', $t_z2)->code, 200, 'zack\'s still works');
# HSCAccountRecentAuth 1: a login two seconds old must give the password.
sleep 2;
$res = post_form('/account-reauth', form_encode(action => 'token-new',
                 token_name => 'later'), Cookie => "hsc=$yc");
is($res->code, 401, 'an older login: making one asks for the password');
$res = post_form('/account-reauth', form_encode(action => 'token-new',
                 token_name => 'later', password => $PW{yara}),
                 Cookie => "hsc=$yc");
ok($res->code == 200 && ($res->content // '') =~ $tok_re,
   'with the password it is made');

# --- curl with Bearer; git over plain http with Basic ---------------------
# curl and git run without the sanitizer build's LD_PRELOAD of libasan
# (t/apache-test.httpd sets it for the server): both hang under it.
my $plain = 'env -u LD_PRELOAD -u ASAN_OPTIONS';
my $url = "http://$hostport/tok-bearer/page.html";
my $code = `$plain curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer $t_z2' '$url'`;
is($code, '200', 'curl -H "Authorization: Bearer ..." gets the page');

my $git = var_dir() . '/git';
my $work = var_dir() . '/git-work';
remove_tree($git, $work, var_dir() . '/git-clone', var_dir() . '/git-clone2');
make_path($work);
my $g = "$plain git -c user.name=t -c user.email=t\@example.com -c init.defaultBranch=main";
system("cd '$work' && $g init -q && echo 'hello from the repository' > README "
       . "&& $g add README && $g commit -qm one && "
       . "$g clone -q --bare . '$git/repo.git' && cd '$git/repo.git' && "
       . "$plain git update-server-info") == 0 or die "git setup failed\n";
system('chmod', '-R', 'a+rX', $git);
my $clone = var_dir() . '/git-clone';
my $gitenv = "$plain GIT_TERMINAL_PROMPT=0 GIT_ASKPASS=/bin/false";
my $rc_git = system("$gitenv git clone -q 'http://yara:$t_git\@$hostport/tok-git/repo.git' '$clone' 2>/dev/null");
is($rc_git, 0, 'git clone over http with the git token (Basic after the 401)');
ok(-f "$clone/README" && HSCTest::slurp("$clone/README") =~ /hello from/,
   'the clone has the file');
$rc_git = system("$gitenv git clone -q 'http://yara:$t_dav\@$hostport/tok-git/repo.git' '"
                 . var_dir() . "/git-clone2' 2>/dev/null");
isnt($rc_git, 0, 'a token without the git scope cannot clone');
