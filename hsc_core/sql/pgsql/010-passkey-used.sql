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
-- Whoever may call hsc_revoke (the httpd role of the docs) may call it.
DO $do$
DECLARE
    sch text := current_schema();
    grantee text;
    fn text := format('%1$I.hsc_passkeys_used(text)', sch);
BEGIN
    EXECUTE format($f$
CREATE FUNCTION %1$I.hsc_passkeys_used(who text)
RETURNS TABLE (cred_id bytea, last_used bigint)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
    SELECT p.cred_id, p.last_challenge / 1000
      FROM %1$I.hsc_passkeys p
     WHERE p.username = who AND p.last_challenge > 0
$body$;
$f$, sch);

    EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', fn);
    FOR grantee IN
        SELECT DISTINCT a.grantee::regrole::text
          FROM pg_proc p
          JOIN pg_namespace n ON n.oid = p.pronamespace
          CROSS JOIN LATERAL aclexplode(p.proacl) a
         WHERE n.nspname = sch AND p.proname = 'hsc_revoke'
           AND a.privilege_type = 'EXECUTE'
           AND a.grantee <> 0 AND a.grantee <> p.proowner
    LOOP
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %s', fn, grantee);
    END LOOP;
END
$do$;
