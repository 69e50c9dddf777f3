package HSCPasskey;
# Helpers shared by the passkey Apache::Test files (t/41 to t/44): the
# software authenticator (test/lib/hsc_soft_authn.py), the ceremony
# endpoints' form posts and JSON answers (docs/dev/passkeys.md), and the
# pages, all on one virtual host that a test names first with pk_host().
use strict;
use warnings FATAL => 'all';

use Exporter 'import';
use File::Temp qw(tempdir);
use FindBin ();
use JSON::PP ();

use Apache::TestRequest ();
use HSCTest ();

our @EXPORT = qw(
    pk_host soft pk_post json_of options other_authenticator page pk_login
    action %AMR
);

# The amr bits of a format 2 cookie (docs/spec/hsc-v2.md).
our %AMR = (pwd => 1, otp => 2, hwk => 4, uv => 8, rc => 16, seal => 32,
            pending => 64);

my ($HOST, $ORIGIN);
# The host the ceremonies go to; returns its origin, https://$host (the
# vhosts have https ServerNames: the form's Origin check and the default
# HSCWebAuthnOrigin agree with it).
sub pk_host
{
    ($HOST) = @_;
    $ORIGIN = "https://$HOST";
    return $ORIGIN;
}

sub host { return $HOST // die "HSCPasskey: pk_host() not called\n" }

my $tool = "$FindBin::Bin/../test/lib/hsc_soft_authn.py";
# The software authenticator: its stdout as a hash when JSON, else as
# text (prf prints z), or dies.
sub soft
{
    my (@args) = @_;
    open my $fh, '-|', '/usr/bin/python3', $tool, @args
        or die "$tool: $!\n";
    my $out = do { local $/; <$fh> };
    my $what = join ' ', grep { defined } @args[0, 1];
    close $fh or die "hsc_soft_authn.py $what: exit " . ($? >> 8) . "\n";
    return $out =~ /^\{/ ? JSON::PP::decode_json($out) : $out;
}

# POST the fields to $path (the contract's form encoding); %o: cookie,
# host (default pk_host's).
sub pk_post
{
    my ($path, $fields, %o) = @_;
    my $host = $o{host} // host();
    # (localhost is plain http on the test's port: no Origin sent there.)
    my @h = (Host => $host,
             $host eq 'localhost' ? () : (Origin => "https://$host"));
    push @h, (Cookie => "hsc=$o{cookie}") if defined $o{cookie};
    my $body = HSCTest::form_encode(map { $_ => $fields->{$_} }
                                    sort keys %$fields);
    return HSCTest::post_form($path, $body, @h);
}

# An answer's JSON body as a hash ({} when it is not JSON).
sub json_of { return eval { JSON::PP::decode_json($_[0]->content) } // {} }

my $work;
my $n = 0;
# The options of a ceremony, also written to a file for the tool:
# ($res, its JSON, the file). %o: cookie, host (as pk_post), link (the
# enrolment link's token, sent as the link field).
sub options
{
    my ($path, $purpose, %o) = @_;
    my %fields = (hsc_passkey => 'options', purpose => $purpose);
    $fields{link} = delete $o{link} if exists $o{link};
    my $res = pk_post($path, \%fields, %o);
    $work //= tempdir(CLEANUP => 1);
    my $file = "$work/options-" . ++$n . '.json';
    HSCTest::spew($file, $res->content);
    return ($res, json_of($res), $file);
}

# (Another authenticator, sharing the tool's state file: the options'
# excludeCredentials would make the same one refuse, InvalidStateError.)
sub other_authenticator
{
    my ($file, $o) = @_;
    delete $o->{excludeCredentials};
    HSCTest::spew($file, JSON::PP::encode_json($o));
}

# GET a page of the host; %o: cookie.
sub page
{
    my ($path, %o) = @_;
    my @h = (Host => host());
    push @h, (Cookie => "hsc=$o{cookie}") if defined $o{cookie};
    return Apache::TestRequest::GET($path, @h);
}

# A password login at $path (default /pk-login) of the host: the answer.
sub pk_login
{
    my ($user, $pw, $path) = @_;
    return HSCTest::login($user, $pw, path => $path // '/pk-login',
                          headers => [Host => host(), Origin => $ORIGIN]);
}

# An account page action (the form field action=$action) with the session
# $cookie; %o: path (default /pk-account), fields (more form fields).
sub action
{
    my ($cookie, $action, %o) = @_;
    my $body = HSCTest::form_encode(action => $action, %{ $o{fields} // {} });
    return HSCTest::post_form($o{path} // '/pk-account', $body, Host => host(),
                              Origin => $ORIGIN, Cookie => "hsc=$cookie");
}

1;
