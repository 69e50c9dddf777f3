# What an administrator meets first, tested as they meet it:
# - the README shows exactly the files in conf/, and `httpd -t` passes them
#   (conf/debian-site.conf with mod_ssl, as Debian's apache2 runs it);
# - no directive line in conf/ or the README has a trailing # comment
#   (httpd has none: Require would take it as arguments);
# - a user database that the server's User cannot read (the file,
#   its directory, its -wal or -shm file) fails `httpd -t` naming the path
#   and the fix (HSC140);
# - a Secure cookie set over plain http is warned about once per child
#   (HSC141), but not over a trusted proxy's https or on localhost.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use File::Temp qw(tempdir);
use IO::Socket::INET;
use HSCTest;

my $httpd = Apache::Test::vars('httpd');
my $modules = Apache::Test::vars('httpd_conf');
my $module = $ENV{HSC_MODULE} || "$FindBin::Bin/../.libs/mod_hsc.so";
my $top = "$FindBin::Bin/..";
my $var = var_dir();
my $root = $> == 0;
my $dir = tempdir(CLEANUP => 1);
chmod 0755, $dir;
my ($nobody_uid, $nobody_gid) = (getpwnam('nobody'))[2, 3];
my $group = $root ? (getgrgid($nobody_gid) // 'nogroup') : '';
my $user = $root ? "User nobody\nGroup $group\n" : '';

open my $mf, '<', $modules or die "$modules: $!";
my $mods = do { local $/; <$mf> };
close $mf;
my ($libexec) = $mods =~ m{^LoadModule\s+\S+\s+"?(\S+)/mod_authn_core\.so}m;

sub slurp { my ($f) = @_; open my $fh, '<', $f or die "$f: $!"; local $/; return scalar <$fh> }
sub spew { my ($f, $t) = @_; open my $fh, '>', $f or die "$f: $!"; print $fh $t; close $fh or die $! }

# A fresh user database with alice, owned by the children's user.
sub new_db
{
    my ($sub) = @_;
    my $d = "$dir/$sub";
    mkdir $d or die "$d: $!";
    chmod 0700, $d;
    admin_ok(undef, 'init', "$d/users.db");
    admin_ok("$PW{alice}\n", 'add', "$d/users.db", 'alice', '--groups', 'staff',
             '--kdf', 'scrypt:1024:8:1', '--password-stdin', '--force');
    chown $nobody_uid, $nobody_gid, $d, glob("$d/users.db*") if $root;
    return "$d/users.db";
}

# httpd -t on $conf after the common head (HSCTest::configtest).
sub configtest { return HSCTest::configtest($dir, @_) }

# --- the README's configuration blocks are the files ---------------------
my $readme = slurp("$top/README.md");
my @blocks = $readme =~ m{^<!-- (conf/[\w.-]+) -->\n```apache\n(.*?)^```$}msg;
my %shown = @blocks;
my $fenced = () = $readme =~ m{^```apache$}mg;
is(scalar(keys %shown), $fenced,
   'every apache block in the README names its file');
ok(exists $shown{'conf/debian-site.conf'} && exists $shown{'conf/private-location.conf'},
   'the README shows conf/debian-site.conf and conf/private-location.conf');
for my $f (sort keys %shown) {
    is($shown{$f}, slurp("$top/$f"), "the README shows $f exactly");
}

# --- no trailing comments --------------------------------------------------
my @trailing;
for my $f (map { "$top/conf/$_" } qw(debian-site.conf private-location.conf
        httpd-hsc-sample.conf hsc.conf hsc.load.in)) {
    my $i = 0;
    for my $line (split /\n/, slurp($f)) {
        $i++;
        # A directive, or one commented out to be uncommented later.
        next unless $line =~ /^\s*#?\s*<?\/?[A-Z][A-Za-z]+\b/;
        next if $line =~ /^\s*#\s/;
        (my $rest = $line) =~ s/^\s*#?//;
        push @trailing, "$f:$i: $line" if $rest =~ /\s#|\s\(/;
    }
}
is("@trailing", '', 'no directive line in conf/ has a trailing comment');

# --- the files pass httpd -t ------------------------------------------------
my $db = new_db('site');
mkdir "$dir/htdocs";
test_cert($dir);
(my $site = slurp("$top/conf/debian-site.conf")) =~ s{/etc/apache2/hsc\.keys}{$var/keys}g;
$site =~ s{/var/lib/apache2/hsc/users\.db}{$db}g;
$site =~ s{/var/www/html}{$dir/htdocs}g;
$site =~ s{/etc/ssl/certs/ssl-cert-snakeoil\.pem}{$dir/snakeoil.pem}g;
$site =~ s{/etc/ssl/private/ssl-cert-snakeoil\.key}{$dir/snakeoil.key}g;
spew("$dir/site.conf", $site);
my ($rc, $out) = configtest(
    "LoadModule ssl_module $libexec/mod_ssl.so\n" . qq{Include "$dir/site.conf"\n});
is($rc, 0, 'httpd -t passes conf/debian-site.conf (mod_ssl, the database, keys and certificate in test places)')
    or diag $out;
($rc, $out) = configtest(qq{HSCKeyFile "$var/keys"\nHSCUserDB "$db"\n}
    . qq{Include "$top/conf/private-location.conf"\n});
is($rc, 0, 'httpd -t passes conf/private-location.conf') or diag $out;

# --- a database the server's User cannot write -----------------------------
my $hsc = qq{HSCKeyFile "$var/keys"\n};
my $good = new_db('good');
($rc, $out) = configtest($hsc . qq{HSCUserDB "$good"\n});
is($rc, 0, 'a database the server can write passes') or diag $out;
unlike($out, qr/HSC14[02]/, 'and nothing is said about it');

# Each as the server's User would meet it: made by root (as root), or
# without the permission (as another user).
sub deny { my ($f) = @_; if ($root) { chown 0, 0, $f; chmod 0600, $f } else { chmod 0000, $f } }

# -wal and -shm missing, the directory not the server's: as root, httpd's
# own configuration pass creates them and SQLite gives them to the
# database's owner (so this works); as another user it cannot.
my $bad_dir = new_db('rootdir');
(my $bd = $bad_dir) =~ s{/users\.db$}{};
unlink "$bad_dir-wal", "$bad_dir-shm";
if ($root) { chown 0, 0, $bd; chmod 0755, $bd } else { chmod 0555, $bd }
($rc, $out) = configtest($hsc . qq{HSCUserDB "$bad_dir"\n});
if ($root) {
    is($rc, 0, 'as root, a database in a directory the server cannot write passes httpd -t')
        or diag $out;
    is((stat "$bad_dir-shm")[4], $nobody_uid,
       "as its -shm, made by httpd's root parent, belongs to the database's owner");
}
else {
    isnt($rc, 0, 'a database whose -wal and -shm the server cannot create fails httpd -t');
    like($out, qr{HSC140: HSCUserDB \Q$bad_dir\E: the server's User \S+ cannot create the -wal and -shm files in \Q$bd\E, so every login and cookie would get 503},
         'naming the directory') or diag $out;
}
chmod 0700, $bd;

# The database made by root (hsc-admin init as root: mode 0600).
my $bad_file = new_db('rootfile');
(my $bd2 = $bad_file) =~ s{/users\.db$}{};
deny($bad_file);
($rc, $out) = configtest($hsc . qq{HSCUserDB "$bad_file"\n});
isnt($rc, 0, 'a database file the server cannot read fails httpd -t');
like($out, qr{HSC140: .*cannot read \Q$bad_file\E,}, 'naming the file') or diag $out;

# The fix in every HSC140 message.
like($out, qr{chown \S+:\S+ \Q$bd2 $bad_file\E\*; and run hsc-admin as that user \(runuser -u \S+ -- hsc-admin},
     'and says the fix: chown, and hsc-admin as that user');

# A -shm the server cannot read (as root SQLite hands it back to the
# database's owner when httpd opens it, as above).
my $bad_shm = new_db('rootshm');
deny("$bad_shm-shm");
($rc, $out) = configtest($hsc . qq{HSCUserDB "$bad_shm"\n});
if ($root) {
    is($rc, 0, 'as root, a -shm file of root passes httpd -t') or diag $out;
}
else {
    isnt($rc, 0, 'a -shm file the server cannot read fails httpd -t');
    like($out, qr{HSC140: .*cannot read \Q$bad_shm\E-shm,}, 'naming the -shm file')
        or diag $out;
}

# Readable, not writable: supported (t/07), said as a warning.
my $ro = new_db('readonly');
for my $f ($ro, "$ro-wal", "$ro-shm") {
    spew($f, '') unless -e $f;
    if ($root) { chown 0, 0, $f; chmod 0644, $f } else { chmod 0444, $f }
}
($rc, $out) = configtest($hsc . qq{HSCUserDB "$ro"\n});
is($rc, 0, 'a database the server can read but not write passes httpd -t')
    or diag $out;
like($out, qr{HSC143: HSCUserDB \Q$ro\E is read-only for the server's User \S+ \(cannot write \Q$ro\E\): .*log out everywhere},
     'with a warning that says what will not work') or diag $out;

# --- a Secure cookie over plain http ----------------------------------------
my $port = free_port();
my $conf = "$dir/warn.conf";
my $wdb = new_db('warn');
spew("$dir/mime.types", '');
spew($conf, <<"EOT");
ServerRoot "$dir"
ServerName localhost
Listen 127.0.0.1:$port
PidFile "$dir/warn.pid"
ErrorLog "$dir/warn_log"
LogLevel warn
DefaultRuntimeDir "$dir"
DocumentRoot "$dir/htdocs"
${user}Include "$modules"
LoadModule remoteip_module $libexec/mod_remoteip.so
LoadModule hsc_module "$module"
HSCKeyFile "$var/keys"
HSCUserDB "$wdb"
HSCThrottleCache none
RemoteIPHeader X-Forwarded-For
RemoteIPInternalProxy 127.0.0.1
<Location /login>
    SetHandler hsc-login
</Location>
EOT
$out = `"$httpd" -f "$conf" -k start 2>&1`;
# If an assertion below dies, this server must not outlive the test.
my $started = $? == 0;
END {
    system(qq{"$httpd" -f "$conf" -k stop >/dev/null 2>&1}) if $started;
}
my $up = $started && poll_until(10, sub {
    defined IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 2);
});
ok($up, 'a server with Secure cookies (the default) on plain http starts')
    or diag $out, (-e "$dir/warn_log" ? slurp("$dir/warn_log") : 'no error log');

my $login = sub {
    my (@headers) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 30)
        or return 'down';
    my $body = form_encode(username => 'alice', password => $PW{alice});
    print $s "POST /login HTTP/1.1\r\n" . join('', map { "$_\r\n" } @headers)
        . "Content-Type: application/x-www-form-urlencoded\r\n"
        . "Connection: close\r\nContent-Length: " . length($body) . "\r\n\r\n$body";
    my $status = <$s> // '';
    close $s;
    return $status =~ m{^HTTP/1\.\d (\d{3})} ? $1 : "no answer";
};
my $warnings = sub {
    my $t = -e "$dir/warn_log" ? slurp("$dir/warn_log") : '';
    return grep { /HSC141/ } split /\n/, $t;
};

is($login->('Host: localhost'), 303, 'a login on http://localhost');
is($login->('Host: www.example.test', 'X-Forwarded-Proto: https',
            'X-Forwarded-For: 192.0.2.7'), 303,
   'a login through a trusted proxy that says https');
is(scalar($warnings->()), 0, 'neither is warned about (browsers keep those cookies)');

is($login->('Host: www.example.test', 'X-Forwarded-Proto: https'), 303,
   'a login on plain http, X-Forwarded-Proto from an untrusted client');
poll_until(5, sub { $warnings->() > 0 });
my @w = $warnings->();
is(scalar(@w), 1, 'is warned about (HSC141)');
like($w[0] // '', qr{\[hsc:warn\] .*HSC141: the hsc cookie is Secure but this request came over plain http: the browser will drop it},
     'saying the browser will drop the cookie');
$login->('Host: www.example.test') for 1 .. 8;
@w = $warnings->();
my %per_child;
$per_child{$_}++ for map { /\[pid (\d+)/ ? $1 : 'none' } @w;
is(join(',', grep { $per_child{$_} > 1 } sort keys %per_child), '',
   'at most once per child (' . scalar(@w) . ' warnings from ' . scalar(keys %per_child) . ' children)');

`"$httpd" -f "$conf" -k stop 2>&1` if $started;
poll_until(10, sub { !-e "$dir/warn.pid" });
$started = 0;

done_testing();
