package HSCTest;
# Helpers shared by the Apache::Test files of mod_hsc: the fixtures (made
# with the built hsc-admin), hsc-admin calls while httpd runs, form posts,
# and Set-Cookie parsing. Cookies are sent by hand (a Cookie header per
# request) except where a test says it uses LWP's cookie jar.
use strict;
use warnings FATAL => 'all';

use Exporter 'import';
use Digest::SHA qw(hmac_sha1 hmac_sha256);
use MIME::Base64 qw(decode_base64url encode_base64url);
use File::Path qw(remove_tree make_path);
use File::Spec ();
use FindBin ();
use IPC::Open3 qw(open3);
use Symbol qw(gensym);
use Time::HiRes ();

use Apache::TestRequest ();

our @EXPORT = qw(
    var_dir admin admin_ok ua_plain ua_jar form_encode post_form login
    set_cookies cookie_from cookie_header_for attrs_of cookie_fields
    get_with sleep_until %PW html_field base32_decode totp
    fault_db fault_good_db child_ids poll_until error_log_text raw_http
    log_size log_since free_port answer_detail storeid_db storeid_fix_owner
    mint2 mint1 test_cert
);

# Every test user, its password and groups. Each test file uses its own
# users so that hsc-admin changes in one file cannot disturb another.
our %PW = map { $_ => "$_-pw-1" }
    qw(alice bob carol dave erin frank grace heidi ivan judy kim leo mia ned
       oscar pat quinn rita sam tom uma wes xena yara zack vera ugo yves zoe
       ines omar pia rui tara dora);
my %GROUPS = (alice => 'staff,admins', bob => 'staff', judy => 'staff',
              wes => 'ops,staff', xena => 'staff', yara => 'staff',
              yves => 'staff,ops');

sub t_dir { File::Spec->rel2abs($FindBin::Bin) }
sub var_dir { t_dir() . '/var' }

sub admin_bin
{
    my $bin = $ENV{HSC_ADMIN} || t_dir() . '/../hsc-admin';
    die "hsc-admin not found at $bin (build it, or set HSC_ADMIN)\n"
        unless -x $bin;
    return $bin;
}

# Run hsc-admin with @args, $stdin fed to it; returns (exit status, output).
sub admin_in
{
    my ($stdin, @args) = @_;
    my $err = gensym;
    my $pid = open3(my $in, my $out, $err, admin_bin(), @args);
    print $in $stdin if defined $stdin;
    close $in;
    my $output = do { local $/; <$out> } // '';
    $output .= do { local $/; <$err> } // '';
    waitpid $pid, 0;
    my $rc = $? >> 8;
    fix_owner();
    return ($rc, $output);
}

sub admin { return admin_in(undef, @_) }

# Run hsc-admin and die with its output when it fails (setup steps).
sub admin_ok
{
    my ($stdin, @args) = @_;
    my ($rc, $out) = admin_in($stdin, @args);
    die "hsc-admin @args: exit $rc: $out\n" if $rc != 0;
    return $out;
}

# The children run as nobody and SQLite writes its WAL and shm files beside
# the database: the database and its folder belong to them.
sub fix_owner
{
    return if $> != 0;
    my ($uid, $gid) = (getpwnam('nobody'))[2, 3];
    return unless defined $uid;
    my $var = var_dir();
    chown $uid, $gid, $var,
        grep { -e } map { "$var/users.db$_" }
        ('', '-wal', '-shm', '-state', '-state-wal', '-state-shm');
}

# Key files: k1 is the main server's; keys-rotated has a newer key first
# (it signs) and k1 second; keys-k2only has the newer key alone. They are
# mode 0600 and stay root's: only the parent reads them. keys-open is k1
# again, mode 0644, for the startup warning.
sub make_fixtures
{
    my ($var) = @_;
    remove_tree($var);
    make_path($var);
    # The audit log (HSCAuditLog in extra.conf.in) starts empty with the
    # server, as its error_log does: t/17 compares the two.
    unlink t_dir() . '/logs/hsc-audit.log';
    chmod 0755, $var;
    my $db = "$var/users.db";

    # Rotation as an administrator does it: keygen on an existing file puts
    # a new first key above the old one.
    admin_ok(undef, 'keygen', "$var/keys", '--kid', 'k1');
    my $k1 = slurp("$var/keys");
    spew("$var/keys-rotated", $k1);
    admin_ok(undef, 'keygen', "$var/keys-rotated", '--kid', 'k2');
    my ($k2) = grep { /^k2 / } split /^/, slurp("$var/keys-rotated");
    spew("$var/keys-k2only", $k2);
    # Readable by others: the server must warn about it at startup.
    spew("$var/keys-open", $k1);
    # k1 again, for t/19_health.t to delete and put back.
    spew("$var/keys-ops", $k1);
    chmod 0644, "$var/keys-open";

    admin_ok(undef, 'init', $db);
    for my $user (sort keys %PW) {
        admin_ok("$PW{$user}\n", 'add', $db, $user,
                 '--kdf', 'sha256-chain:1000',
                 ($GROUPS{$user} ? ('--groups', $GROUPS{$user}) : ()),
                 '--password-stdin', '--force');
    }
    fix_owner();

    # A copy the children may read but not write (root's, in root's
    # folder): "log out everywhere" cannot record the revocation there.
    make_path("$var/ro");
    chmod 0755, "$var/ro";
    open my $src, '<:raw', $db or die "$db: $!";
    open my $dst, '>:raw', "$var/ro/users.db" or die "$var/ro/users.db: $!";
    print $dst do { local $/; <$src> };
    close $dst or die "$var/ro/users.db: $!";
    chmod 0644, "$var/ro/users.db";

    make_fault_fixtures($var);
    make_storeid_fixtures($var);
}

# t/26_store_id.t: var/storeid/users.db, also named through the symlinked
# folder var/storeid-link; var/storeid-other/users.db, another database
# with the same user; var/storeid-v1/users.db, a file of schema version 1
# (no store id). Each folder and file belongs to the children.
sub storeid_db { return var_dir() . "/$_[0]/users.db" }

sub make_storeid_fixtures
{
    my ($var) = @_;
    my ($uid, $gid) = child_ids();
    for my $d (qw(storeid storeid-other storeid-v1 schema-v2)) {
        make_path("$var/$d");
        chmod 0755, "$var/$d";
        my $db = storeid_db($d);
        admin_ok(undef, 'init', $db);
        admin_ok("sid-pw\n", 'add', $db, 'sid-user',
                 '--kdf', 'sha256-chain:1000', '--password-stdin', '--force');
    }
    symlink 'storeid', "$var/storeid-link"
        or die "symlink $var/storeid-link: $!\n";
    system('sqlite3', storeid_db('storeid-v1'),
           'DROP TRIGGER hsc_users_passkeys_go; DROP TABLE hsc_passkeys; '
           . 'DROP TABLE hsc_passkey_users; '
           . 'ALTER TABLE hsc_users DROP COLUMN passkey_seals; '
           . 'DROP TRIGGER hsc_users_tokens_go; DROP TABLE hsc_tokens; '
           . 'DROP TRIGGER hsc_users_factors_go; DROP TABLE hsc_totp; '
           . 'DROP TABLE hsc_recovery; DROP TABLE hsc_links; '
           . 'ALTER TABLE hsc_users DROP COLUMN gen; DROP TABLE hsc_meta; '
           . 'PRAGMA user_version = 1') == 0
        or die "sqlite3: $?\n";
    # t/31: a file of version 2 (no gen, no factor tables), left so.
    system('sqlite3', storeid_db('schema-v2'),
           'DROP TRIGGER hsc_users_passkeys_go; DROP TABLE hsc_passkeys; '
           . 'DROP TABLE hsc_passkey_users; '
           . 'ALTER TABLE hsc_users DROP COLUMN passkey_seals; '
           . 'DROP TRIGGER hsc_users_tokens_go; DROP TABLE hsc_tokens; '
           . 'DROP TRIGGER hsc_users_factors_go; DROP TABLE hsc_totp; '
           . 'DROP TABLE hsc_recovery; DROP TABLE hsc_links; '
           . 'ALTER TABLE hsc_users DROP COLUMN gen; '
           . 'PRAGMA user_version = 2') == 0
        or die "sqlite3: $?\n";
    storeid_fix_owner();
}

# The children write the -wal and -shm files: after a command run as
# root, give them back.
sub storeid_fix_owner
{
    my ($uid, $gid) = child_ids();
    my $var = var_dir();
    for my $d (qw(storeid storeid-other storeid-v1 schema-v2)) {
        chown $uid, $gid, "$var/$d",
            grep { -e } map { storeid_db($d) . $_ }
            ('', '-wal', '-shm', '-state', '-state-wal', '-state-shm');
    }
}

sub slurp
{
    my ($file) = @_;
    open my $fh, '<', $file or die "$file: $!\n";
    local $/;
    return scalar <$fh>;
}

sub spew
{
    my ($file, $text) = @_;
    my $old = umask 077;
    open my $fh, '>', $file or die "$file: $!\n";
    print $fh $text;
    close $fh or die "$file: $!\n";
    umask $old;
    chmod 0600, $file;
}

# A user agent that never follows redirects; with or without a jar.
# A user agent without cookie jar or redirects; ua_plain(keep_alive => 0)
# opens a new connection per request.
sub ua_plain
{
    my (%o) = @_;
    Apache::TestRequest::user_agent(reset => 1, requests_redirectable => 0,
                                    keep_alive => $o{keep_alive} // 1);
}

sub ua_jar
{
    Apache::TestRequest::user_agent(reset => 1, cookie_jar => {},
                                    requests_redirectable => 0);
}

# application/x-www-form-urlencoded, every byte but unreserved escaped.
sub form_encode
{
    my @pairs = @_;
    my @out;
    while (my ($k, $v) = splice @pairs, 0, 2) {
        for ($k, $v) {
            s/([^A-Za-z0-9_.~-])/sprintf('%%%02X', ord $1)/ge;
        }
        push @out, "$k=$v";
    }
    return join '&', @out;
}

sub post_form
{
    my ($path, $body, @headers) = @_;
    return Apache::TestRequest::POST(
        $path,
        'Content-Type' => 'application/x-www-form-urlencoded',
        @headers,
        content => $body);
}

# POST a login form to $path (default /login); %opt: return, headers.
sub login
{
    my ($user, $pw, %opt) = @_;
    my $path = $opt{path} || '/login';
    my @fields = (username => $user, password => $pw);
    push @fields, (return => $opt{return}) if defined $opt{return};
    return post_form($path, form_encode(@fields), @{ $opt{headers} || [] });
}

sub set_cookies
{
    my ($res) = @_;
    return $res->headers->header('Set-Cookie');
}

# The value of cookie $name set by $res, or undef.
sub cookie_from
{
    my ($res, $name) = @_;
    $name //= 'hsc';
    for my $h (set_cookies($res)) {
        return $1 if $h =~ /^\Q$name\E=([^;]*)/;
    }
    return undef;
}

# The whole Set-Cookie header for $name, or undef.
sub cookie_header_for
{
    my ($res, $name) = @_;
    for my $h (set_cookies($res)) {
        return $h if $h =~ /^\Q$name\E=/;
    }
    return undef;
}

# Attributes of one Set-Cookie header: lower-case name => value (or '').
sub attrs_of
{
    my ($header) = @_;
    my ($pair, @attrs) = split /\s*;\s*/, $header;
    my %a;
    for (@attrs) {
        my ($k, $v) = split /=/, $_, 2;
        $a{lc $k} = $v // '';
    }
    return \%a;
}

# The fields of a format 1 value: (version, kid, user, iat, exp, auth, mac).
sub cookie_fields { return split /\./, $_[0] }

# GET $path sending the cookie $name=$value (no cookie when undef).
sub get_with
{
    my ($path, $name, $value, @headers) = @_;
    push @headers, (Cookie => "$name=$value") if defined $value;
    return Apache::TestRequest::GET($path, @headers);
}

# What a failed answer was, for a diagnostic: LWP makes up a 500 of its own
# ("Client-Warning: Internal response") when the connection fails, and that
# is a different story from a 500 httpd sent.
sub answer_detail
{
    my ($res) = @_;
    my $internal = ($res->header('Client-Warning') // '') =~ /internal/i;
    my $first = (split /\n/, $res->content // '')[0] // '';
    return $res->code . ($internal ? " from LWP itself: $first"
                                   : ' from httpd');
}

# A format 2 cookie value (docs/spec/hsc-v2.md) minted here with the first
# key of a key file (default the main server's), as an attacker holding
# the key file would: %c has user, iat, exp, gen, lid (its base64url text),
# amr, mfa_at, auth (bytes: x_n when pwd, then z when seal), and scope and
# address (default empty). Perl's HMAC, not the module's code.
sub mint2
{
    my (%c) = @_;
    my ($line) = grep { /^[A-Za-z0-9_-]+\s+\S/ }
        split /\n/, slurp($c{keys} // var_dir() . '/keys');
    my ($kid, $secret) = split /\s+/, $line;
    my $k = hmac_sha256('hsc-cookie-mac-v1', decode_base64url($secret));
    my $body = join '.', 2, $kid, encode_base64url($c{user}), $c{iat},
        $c{exp}, $c{gen}, $c{lid}, $c{amr}, $c{mfa_at},
        encode_base64url($c{auth});
    my $m = join "\n", $body, $c{scope} // '', $c{address} // '';
    return $body . '.' . encode_base64url(hmac_sha256($m, $k));
}

# A format 1 cookie value (docs/spec/hsc-v1.md) as a module before the
# factor tables issued it to a password login, for a file where no login
# issues one now (a file without the factor tables fails closed, 503): x_n
# is computed here from the password and the salt in the SQLite file $db
# (sha256-chain only) and checked against the stored authenticator, so the
# value is exactly the one that login made. Returns undef if it does not
# match. %c: db, user, password, iat, exp, keys.
sub mint1
{
    my (%c) = @_;
    (my $u = $c{user}) =~ s/'/''/g;
    open my $q, '-|', 'sqlite3', $c{db},
        "SELECT hex(salt), kdf, hex(authenticator) FROM hsc_users "
        . "WHERE username = '$u'" or return undef;
    my $row = <$q> // '';
    close $q;
    chomp $row;
    my ($salt, $kdf, $v) = split /\|/, $row;
    return undef unless $kdf && $kdf =~ /^sha256-chain:(\d+)$/;
    my $n = $1;
    $salt = pack 'H*', $salt;
    my $x = $c{password};
    $x = Digest::SHA::sha256($x . $salt) for 1 .. $n;
    return undef unless uc unpack('H*', Digest::SHA::sha256($x)) eq $v;
    my ($line) = grep { /^[A-Za-z0-9_-]+\s+\S/ }
        split /\n/, slurp($c{keys} // var_dir() . '/keys');
    my ($kid, $secret) = split /\s+/, $line;
    my $k = hmac_sha256('hsc-cookie-mac-v1', decode_base64url($secret));
    my $body = join '.', 1, $kid, encode_base64url($c{user}), $c{iat},
        $c{exp}, encode_base64url($x);
    return $body . '.' . encode_base64url(hmac_sha256("$body\n\n", $k));
}

sub sleep_until
{
    my ($t) = @_;
    my $d = $t - Time::HiRes::time();
    Time::HiRes::sleep($d) if $d > 0;
}

# The value of the form field $name in an HTML page.
sub html_field
{
    my ($html, $name) = @_;
    return $1 if $html =~ /<input[^>]*name="\Q$name\E"[^>]*value="([^"]*)"/;
    return $1 if $html =~ /<input[^>]*value="([^"]*)"[^>]*name="\Q$name\E"/;
    return undef;
}


# --- t/14_hostile.t and t/15_faults.t -------------------------------------

# The faults of t/15_faults.t each break their own copy of the user
# database (var/faults/NAME/users.db, one virtual host each); good.db is
# the copy a test puts back.
my @FAULTS = qw(gone garbage lock xlock perm opsgone);

sub fault_good_db { return var_dir() . '/faults/good.db' }
sub fault_db { return var_dir() . "/faults/$_[0]/users.db" }

# (uid, gid) the httpd children run as: nobody when the tests run as root
# (Apache::TestConfig's default), else the caller's own.
sub child_ids
{
    return ($>, $) + 0) if $> != 0;
    my ($uid, $gid) = (getpwnam('nobody'))[2, 3];
    return ($uid, $gid);
}

sub make_fault_fixtures
{
    my ($var) = @_;
    my ($uid, $gid) = child_ids();
    my $src = "$var/users.db";
    my $bytes = slurp_raw($src);
    make_path("$var/faults");
    chmod 0755, "$var/faults";
    spew_raw(fault_good_db(), $bytes, 0644);
    for my $f (@FAULTS) {
        my $dir = "$var/faults/$f";
        make_path($dir);
        chmod 0755, $dir;
        spew_raw("$dir/users.db", $bytes, 0644);
        chown $uid, $gid, $dir, "$dir/users.db";
    }
}

sub slurp_raw
{
    my ($file) = @_;
    open my $fh, '<:raw', $file or die "$file: $!\n";
    local $/;
    return scalar <$fh>;
}

sub spew_raw
{
    my ($file, $bytes, $mode) = @_;
    open my $fh, '>:raw', $file or die "$file: $!\n";
    print $fh $bytes;
    close $fh or die "$file: $!\n";
    chmod $mode, $file;
}

# Call $fn every 0.1 s until it returns true or $secs pass; its last value.
sub poll_until
{
    my ($secs, $fn) = @_;
    my $end = Time::HiRes::time() + $secs;
    my $v;
    while (1) {
        $v = $fn->();
        return $v if $v || Time::HiRes::time() >= $end;
        Time::HiRes::sleep(0.1);
    }
}

# The size of the test server's error log, and what was written to it
# since such a size: log_since(log_size()) around a step.
sub log_size
{
    return -s Apache::Test::vars('t_logs') . '/error_log' || 0;
}

sub log_since
{
    my ($off) = @_;
    my $log = Apache::Test::vars('t_logs') . '/error_log';
    open my $fh, '<:raw', $log or die "$log: $!\n";
    seek $fh, $off, 0;
    local $/;
    return scalar(<$fh>) // '';
}

# A TCP port on 127.0.0.1 that was free a moment ago, for a separate httpd.
sub free_port
{
    require IO::Socket::INET;
    my $s = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0,
                                  Listen => 1, ReuseAddr => 1)
        or die "no free port: $!\n";
    my $port = $s->sockport;
    close $s;
    return $port;
}

# The whole error log of the test server.
sub error_log_text
{
    my $log = Apache::Test::vars('t_logs') . '/error_log';
    open my $fh, '<:raw', $log or die "$log: $!\n";
    local $/;
    return scalar <$fh>;
}

# Send $bytes to the test server on a raw socket; with $half_close the
# writing side is shut down after them. Returns what came back within
# $timeout seconds (default 5), or '' (never hangs).
sub raw_http
{
    my ($bytes, %opt) = @_;
    require IO::Socket::INET;
    require IO::Select;
    my $timeout = $opt{timeout} // 5;
    my $sock = IO::Socket::INET->new(
        PeerAddr => Apache::TestRequest::hostport(), Proto => 'tcp',
        Timeout => $timeout) or die "connect: $!\n";
    binmode $sock;
    $sock->syswrite($bytes);
    shutdown($sock, 1) if $opt{half_close};
    my $sel = IO::Select->new($sock);
    my ($out, $end) = ('', Time::HiRes::time() + $timeout);
    while ((my $left = $end - Time::HiRes::time()) > 0) {
        last unless $sel->can_read($left);
        my $n = $sock->sysread(my $buf, 65536);
        last unless $n;
        $out .= $buf;
    }
    close $sock;
    return $out;
}


# --- second factors: TOTP computed here, not by the module ------------------
# RFC 4648 base32, then RFC 6238 with SHA-1, 6 digits, 30 s.
sub base32_decode
{
    my ($s) = @_;
    my $bits = join '', map {
        sprintf '%05b', index('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', $_)
    } split //, uc $s;
    $bits = substr($bits, 0, length($bits) - length($bits) % 8);
    return pack 'B*', $bits;
}

sub totp
{
    my ($key, $t) = @_;
    my $step = int($t / 30);
    my $h = hmac_sha1(pack('NN', int($step / 2**32), $step % 2**32), $key);
    my $o = ord(substr $h, -1) & 0x0f;
    my $n = unpack('N', substr $h, $o, 4) & 0x7fffffff;
    return sprintf '%06d', $n % 1_000_000;
}

# `httpd -t` of $conf in $dir (a directory of the test's own, mode 0755),
# after the head every configuration check uses: ServerRoot, a Listen that
# is never opened, the test run's modules (the MPM of this run), mod_hsc
# from the build. Returns (exit status, output). t/29_deploy.t and
# t/45_doc_blocks.t check the administrators' configurations with it.
my $configtests = 0;
sub configtest
{
    my ($dir, $conf) = @_;
    my $httpd = Apache::Test::vars('httpd');
    my $modules = Apache::Test::vars('httpd_conf');
    my $module = $ENV{HSC_MODULE} || t_dir() . '/../.libs/mod_hsc.so';
    my $user = '';
    if ($> == 0) {
        my $gid = (getpwnam('nobody'))[3];
        $user = "User nobody\nGroup " . (getgrgid($gid) // 'nogroup') . "\n";
    }
    my $file = "$dir/case" . $configtests++ . '.conf';
    spew($file, <<"EOT" . $conf);
ServerRoot "$dir"
ServerName localhost
Listen 127.0.0.1:1
PidFile "$dir/pid"
ErrorLog "$dir/error_log"
${user}Include "$modules"
LoadModule hsc_module "$module"
EOT
    my $out = `"$httpd" -t -f "$file" 2>&1`;
    return ($? >> 8, $out);
}

# A self-signed certificate for localhost in $dir/snakeoil.pem and its key
# in $dir/snakeoil.key, standing for Debian's ssl-cert snakeoil pair.
sub test_cert
{
    my ($dir) = @_;
    my @req = ('openssl', 'req', '-x509', '-newkey', 'rsa:2048', '-nodes',
               '-days', '2', '-subj', '/CN=localhost', '-keyout',
               "$dir/snakeoil.key", '-out', "$dir/snakeoil.pem");
    # Its progress dots go to /dev/null; the error, if any, to the die.
    my $out = `@{[ join ' ', map { "'$_'" } @req ]} 2>&1`;
    die "openssl req failed: $out\n" if $? != 0;
}

1;
