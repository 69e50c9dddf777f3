-- mod_hsc PostgreSQL schema, version 10: when each passkey was last used,
-- for the account page's list (issue 21; docs/passkeys.md, "Last used"),
-- as SQLite reads it from its state file.
--
-- hsc_passkeys_used returns one user's credential ids with the time (Unix
-- seconds) of the last accepted assertion's challenge: the column the
-- one-time rule keeps anyway (hsc_passkey_accept), so reading it writes
-- nothing. A passkey never used has no row. It is a function of its own,
-- not a new column of hsc_passkeys_of: a function's result type cannot be
-- replaced, and a drop would take its grants with it.
--
-- hsc_grant_like_revoke(fn) is what versions 4 to 9 each wrote out: it
-- grants EXECUTE on fn to every role that may call hsc_revoke (the httpd
-- role of the docs), so an upgrade needs no new GRANT. Later versions
-- call it. It runs with its caller's rights (hsc-admin init's) and nobody
-- else may call it.
DO $do$
DECLARE
    sch text := current_schema();
BEGIN
    EXECUTE format($f$
CREATE FUNCTION %1$I.hsc_grant_like_revoke(fn text)
RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
DECLARE
    grantee text;
BEGIN
    FOR grantee IN
        SELECT DISTINCT a.grantee::regrole::text
          FROM pg_proc p
          JOIN pg_namespace n ON n.oid = p.pronamespace
          CROSS JOIN LATERAL aclexplode(p.proacl) a
         WHERE n.nspname = %3$L AND p.proname = 'hsc_revoke'
           AND a.privilege_type = 'EXECUTE'
           AND a.grantee <> 0 AND a.grantee <> p.proowner
    LOOP
        EXECUTE format('GRANT EXECUTE ON FUNCTION %%s TO %%s', fn, grantee);
    END LOOP;
END
$body$;
REVOKE ALL ON FUNCTION %1$I.hsc_grant_like_revoke(text) FROM PUBLIC;

CREATE FUNCTION %1$I.hsc_passkeys_used(who text)
RETURNS TABLE (cred_id bytea, last_used bigint)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
    SELECT p.cred_id, p.last_challenge / 1000
      FROM %1$I.hsc_passkeys p
     WHERE p.username = who AND p.last_challenge > 0
$body$;
REVOKE ALL ON FUNCTION %1$I.hsc_passkeys_used(text) FROM PUBLIC;
SELECT %1$I.hsc_grant_like_revoke(%2$L);
$f$, sch, format('%I.hsc_passkeys_used(text)', sch), sch);
END
$do$;
