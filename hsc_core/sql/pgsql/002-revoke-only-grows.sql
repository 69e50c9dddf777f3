-- mod_hsc PostgreSQL schema, version 2 (security round 3).
--
-- 1. No code that runs with the owner's rights searches pg_temp first.
--    Version 1's change-log trigger was SECURITY DEFINER with the search path
--    of its creation ("$user", public), where pg_temp comes first: a role
--    with TEMPORARY could put its own pg_temp.hsc_changes, with a trigger, in
--    front and run code as the owner. The trigger now runs with the rights of
--    whoever changes hsc_users (the owner, or hsc_revoke below, which runs as
--    the owner), its path is pinned with pg_temp last, and it names every
--    table with its schema.
-- 2. Revocation only grows. The httpd role loses its column UPDATE on
--    revoked_before (it could set 0 and bring revoked cookies back) and gets
--    hsc_revoke, which can only raise it: to at least "since", and always
--    past its current value, so that two revocations in one second both
--    count (a login between them has iat = the first one's value).
DO $do$
DECLARE
    sch text := current_schema();
    grantee text;
BEGIN
    EXECUTE format($f$
CREATE OR REPLACE FUNCTION %1$I.hsc_users_changed() RETURNS trigger
LANGUAGE plpgsql SECURITY INVOKER SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
DECLARE
    g bigint;
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE %1$I.hsc_generation SET generation = generation + 1 WHERE id = 1
            RETURNING generation INTO g;
        INSERT INTO %1$I.hsc_changes (generation, username)
            VALUES (g, OLD.username);
    END IF;
    IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE'
                            AND NEW.username IS DISTINCT FROM OLD.username) THEN
        UPDATE %1$I.hsc_generation SET generation = generation + 1 WHERE id = 1
            RETURNING generation INTO g;
        INSERT INTO %1$I.hsc_changes (generation, username)
            VALUES (g, NEW.username);
    END IF;
    DELETE FROM %1$I.hsc_changes WHERE generation <= g - 100000;
    RETURN NULL;
END
$body$;

CREATE FUNCTION %1$I.hsc_revoke(who text, since bigint) RETURNS bigint
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
    UPDATE %1$I.hsc_users
       SET revoked_before = greatest(since, revoked_before + 1)
     WHERE username = who
    RETURNING revoked_before
$body$;

REVOKE ALL ON FUNCTION %1$I.hsc_revoke(text, bigint) FROM PUBLIC;
$f$, sch);

    -- Whoever could write revoked_before (the httpd role of the docs) may
    -- now only raise it.
    FOR grantee IN
        SELECT DISTINCT a.grantee::regrole::text
          FROM pg_attribute att
          JOIN pg_class c ON c.oid = att.attrelid
          JOIN pg_namespace n ON n.oid = c.relnamespace
          CROSS JOIN LATERAL aclexplode(att.attacl) a
         WHERE n.nspname = sch AND c.relname = 'hsc_users'
           AND att.attname = 'revoked_before' AND a.privilege_type = 'UPDATE'
           AND a.grantee <> 0 AND a.grantee <> c.relowner
    LOOP
        EXECUTE format('REVOKE UPDATE (revoked_before) ON %I.hsc_users FROM %s',
                       sch, grantee);
        EXECUTE format('GRANT EXECUTE ON FUNCTION %I.hsc_revoke(text, bigint) TO %s',
                       sch, grantee);
    END LOOP;
END
$do$;
