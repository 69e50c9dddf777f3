# Every configuration block of docs/ passes its own tool's check, as an
# administrator who pastes it would run it:
# - ```apache: `httpd -t` with mod_hsc from the build (HSCTest::configtest,
#   the check t/29_deploy.t runs on the README's files);
# - ```nginx: `nginx -t` in a prefix of its own;
# - ```caddy: `caddy validate` (Caddyfile adapter);
# - ```haproxy: `haproxy -c`, with the ```lua block it loads (lua-load
#   names the file the Lua block's first comment names).
# A block is a fragment of a whole configuration; the check supplies what
# it leaves out, and nothing more:
# - apache: the head of HSCTest::configtest (ServerRoot, the test run's
#   modules, mod_hsc); HSCKeyFile and HSCUserDB when the block has none
#   (every page assumes the README's site around it). A block is read in
#   the server context as it stands: one of lines that belong in a
#   location shows its <Location>;
# - nginx: events {} and the temp paths of the prefix; a block that is a
#   server {} goes in http {}, one of location {} blocks in server {} in
#   http {};
# - haproxy: nothing (the recipe is a whole file).
# What the check substitutes, since the paths and names are the
# administrator's: the key file, the user database, the activity database
# and the audit log (/etc/apache2/hsc.keys, /var/lib/..., /var/log/...) by
# files in a temporary directory, made with hsc-admin; Debian's snakeoil
# certificate (package ssl-cert) and HAProxy's crt by a self-signed one;
# the Lua file by the doc's Lua block; the example hosts
# (*.example.com/net/org) by 127.0.0.1 in nginx and HAProxy only, which
# resolve an upstream's name at startup (the tests run offline).
# Caddy is run with its data and config directories in the temporary
# directory.
# A block that is not meant to be pasted (an excerpt shown for its shape)
# follows a line `<!-- not checked: REASON -->`; each one is listed as a
# passing test that names it and its reason, so they stay visible. Any
# other tag (sh, sql, json, lua, html, python) is not a server's
# configuration; untagged blocks are output.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use File::Temp qw(tempdir);
use HSCTest;

my $top = "$FindBin::Bin/..";
my $var = var_dir();
my $dir = tempdir(CLEANUP => 1);
chmod 0755, $dir;
my %checked = map { $_ => 1 } qw(apache nginx caddy haproxy);

# --- the blocks --------------------------------------------------------------
# Each fenced block of docs/**/*.md: its file and line, tag, text, and the
# reason it is not checked (if marked).
my @blocks;
my @pages = grep { -f } map { glob "$top/docs/$_" } qw(*.md */*.md);
for my $page (@pages) {
    (my $name = $page) =~ s{^\Q$top\E/}{};
    my @lines = split /\n/, HSCTest::slurp($page), -1;
    my ($open, $indent, $mark);
    for my $i (0 .. $#lines) {
        my $l = $lines[$i];
        if (!$open && $l =~ /^(\s*)```(\w*)\s*$/) {
            $open = { page => $name, line => $i + 1, tag => $2, text => '' };
            $indent = length $1;
            $open->{skip} = $mark;
            next;
        }
        if ($open && $l =~ /^\s*```\s*$/) {
            push @blocks, $open;
            undef $open;
            next;
        }
        if ($open) {
            $l =~ s/^ {0,$indent}//;
            $open->{text} .= "$l\n";
            next;
        }
        $mark = $l =~ /^\s*<!-- not checked: (.+?) -->\s*$/ ? $1 : undef
            if $l =~ /\S/;
    }
}
my @configs = grep { $checked{$_->{tag}} } @blocks;
my %lua = map { $_->{text} =~ /^-- (\S+\.lua)\s*$/m ? ($1 => $_->{text}) : () }
          grep { $_->{tag} eq 'lua' } @blocks;
ok(scalar(grep { $_->{tag} eq 'apache' } @configs) > 50
   && scalar(grep { $_->{tag} eq 'nginx' } @configs) >= 1,
   'the pages have apache and nginx blocks (' . scalar(@configs) . ' blocks in all)');

# --- what the blocks refer to ------------------------------------------------
test_cert($dir);
HSCTest::spew("$dir/both.pem", HSCTest::slurp("$dir/snakeoil.pem")
                               . HSCTest::slurp("$dir/snakeoil.key"));
mkdir "$dir/$_" for qw(db htdocs logs caddy nginx);
chmod 0755, "$dir/htdocs", "$dir/logs";
admin_ok(undef, 'keygen', "$dir/keys");
admin_ok(undef, 'init', "$dir/db/users.db");
admin_ok(undef, 'init', "$dir/db/activity.db");
HSCTest::spew("$dir/blocklist.txt", "password\n");
if ($> == 0) {
    my ($uid, $gid) = (getpwnam('nobody'))[2, 3];
    chown $uid, $gid, "$dir/db", "$dir/logs", glob("$dir/db/*");
}

# The administrator's paths and names, as the test has them.
sub local_paths
{
    my ($t) = @_;
    $t =~ s{/etc/apache2/hsc(?:\.keys|/keys)\b}{$dir/keys}g;
    $t =~ s{/var/lib/(?:apache2/)?hsc/(\w+)\.db\b}{$dir/db/$1.db}g;
    $t =~ s{/var/log/apache2/}{$dir/logs/}g;
    $t =~ s{/var/www/}{$dir/htdocs/}g;
    $t =~ s{/etc/apache2/hsc-password-blocklist\.txt}{$dir/blocklist.txt}g;
    $t =~ s{/etc/ssl/certs/ssl-cert-snakeoil\.pem}{$dir/snakeoil.pem}g;
    $t =~ s{/etc/ssl/private/ssl-cert-snakeoil\.key}{$dir/snakeoil.key}g;
    $t =~ s{/etc/haproxy/app\.pem}{$dir/both.pem}g;
    $t =~ s{/etc/haproxy/(\S+\.lua)}{$dir/$1}g;
    return $t;
}

sub offline { (my $t = $_[0]) =~ s/\b[\w.-]+\.example\.(?:com|net|org)\b/127.0.0.1/g; return $t }

# --- each tool -----------------------------------------------------------------
sub check_apache
{
    my ($b) = @_;
    my $t = local_paths($b->{text});
    my $head = '';
    $head .= qq{HSCKeyFile "$dir/keys"\n} unless $t =~ /^\s*HSCKeyFile\b/m;
    $head .= qq{HSCUserDB "$dir/db/users.db"\n} unless $t =~ /^\s*HSCUserDB\b/m;
    return HSCTest::configtest($dir, $head . $t);
}

my $nginx_n = 0;
sub check_nginx
{
    my ($b) = @_;
    my $t = offline(local_paths($b->{text}));
    my $p = "$dir/nginx";
    $t = "server {\n    listen 127.0.0.1:1;\n$t}\n" if $t !~ /^\s*server\s*\{/m;
    my $file = "$p/case" . $nginx_n++ . '.conf';
    HSCTest::spew($file, <<"EOT" . "http {\n$t}\n");
pid $p/nginx.pid;
error_log $p/error.log;
events { worker_connections 64; }
EOT
    # The temp paths of a prefix that is not nginx's own.
    my $tmp = join '', map { "${_}_temp_path $p/$_;\n" }
        qw(client_body proxy fastcgi uwsgi scgi);
    my $text = HSCTest::slurp($file);
    $text =~ s/^http \{\n/http {\n$tmp/m;
    HSCTest::spew($file, $text);
    my $out = `nginx -t -q -p "$p" -c "$file" 2>&1`;
    return ($? >> 8, $out);
}

sub check_caddy
{
    my ($b) = @_;
    my $file = "$dir/caddy/Caddyfile";
    HSCTest::spew($file, local_paths($b->{text}));
    local $ENV{XDG_DATA_HOME} = "$dir/caddy";
    local $ENV{XDG_CONFIG_HOME} = "$dir/caddy";
    local $ENV{HOME} = "$dir/caddy";
    my $out = `caddy validate --adapter caddyfile --config "$file" 2>&1`;
    return ($? >> 8, $out);
}

sub check_haproxy
{
    my ($b) = @_;
    my $t = offline(local_paths($b->{text}));
    for my $path ($b->{text} =~ /^\s*lua-load\s+(\S+)/mg) {
        (my $base = $path) =~ s{.*/}{};
        return (1, "no ```lua block names $path") unless exists $lua{$path};
        HSCTest::spew("$dir/$base", offline($lua{$path}));
    }
    HSCTest::spew("$dir/haproxy.cfg", $t);
    my $out = `haproxy -c -f "$dir/haproxy.cfg" 2>&1`;
    return ($? >> 8, $out);
}

my %check = (apache => \&check_apache, nginx => \&check_nginx,
             caddy => \&check_caddy, haproxy => \&check_haproxy);
my %tool = (apache => 'httpd -t', nginx => 'nginx -t',
            caddy => 'caddy validate', haproxy => 'haproxy -c');
for my $b (@configs) {
    my $where = "$b->{page}:$b->{line}";
    if (defined $b->{skip}) {
        pass("$where is marked not checked: $b->{skip}");
        next;
    }
    my ($rc, $out) = $check{$b->{tag}}->($b);
    is($rc, 0, "$where passes $tool{$b->{tag}}") or diag $out;
}

# The log table of docs/directives.md lists every startup error: a second
# factor on a PostgreSQL user database is none (it is read through the
# schema's functions, docs/second-factors.md).
my ($rc, $out) = HSCTest::configtest($dir, qq{HSCKeyFile "$dir/keys"\n}
    . qq{HSCUserDB "pgsql:host=127.0.0.1 dbname=hsc user=hsc_httpd"\n}
    . "<Location /login>\n    SetHandler hsc-login\n"
    . "    HSCSecondFactor required\n</Location>\n");
is($rc, 0, 'HSCSecondFactor required with a pgsql: user database passes httpd -t')
    or diag $out;

done_testing();
