-- mod_hsc PostgreSQL schema, version 3: the revocation generation of
-- format 2 cookies (docs/spec/hsc-v2.md). hsc_revoke raises gen by one in
-- the statement that raises revoked_before, so the httpd role's "log out
-- everywhere" needs no new right; its SELECT on hsc_users covers the new
-- column. Existing users start at 0.
DO $do$
DECLARE
    sch text := current_schema();
BEGIN
    EXECUTE format($f$
ALTER TABLE %1$I.hsc_users
    ADD COLUMN gen bigint NOT NULL DEFAULT 0 CHECK (gen >= 0);

CREATE OR REPLACE FUNCTION %1$I.hsc_revoke(who text, since bigint)
RETURNS bigint
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
    UPDATE %1$I.hsc_users
       SET revoked_before = greatest(since, revoked_before + 1),
           gen = gen + 1
     WHERE username = who
    RETURNING revoked_before
$body$;
$f$, sch);
END
$do$;
