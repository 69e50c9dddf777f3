-- mod_hsc PostgreSQL schema, version 11: a user's one-time links end with
-- a password change and with disabling (docs/security.md, round 4), as
-- the SQLite store deletes them in the same write transaction.
--
-- The trigger hsc_users_links_end deletes the user's rows of hsc_links
-- after an UPDATE of hsc_users that sets another authenticator (hsc-admin
-- passwd, hsc_password_change of the account page and hsc-api,
-- hsc_link_password) or disables the user (hsc-admin disable): in the
-- same statement, so a reset or invitation link handed out before never
-- outlives them. hsc-admin revoke deletes them in its own statement (the
-- admin role's); other revocations (a factor removed, sign out
-- everywhere: hsc_revoke) keep them, for an enrolment link is how a user
-- who lost every factor gets in again. The httpd role gets no new right:
-- it cannot update hsc_users but through the SECURITY DEFINER functions,
-- and the trigger function runs with the rights of whoever made the
-- UPDATE (the functions' owner, or the admin role), like
-- hsc_passkeys_seals.
DO $do$
DECLARE
    sch text := current_schema();
BEGIN
    EXECUTE format($f$
CREATE FUNCTION %1$I.hsc_users_links_end() RETURNS trigger
LANGUAGE plpgsql SECURITY INVOKER SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
BEGIN
    DELETE FROM %1$I.hsc_links l WHERE l.username = NEW.username;
    RETURN NULL;
END
$body$;
REVOKE ALL ON FUNCTION %1$I.hsc_users_links_end() FROM PUBLIC;

CREATE TRIGGER hsc_users_links_end
    AFTER UPDATE OF authenticator, disabled ON %1$I.hsc_users
    FOR EACH ROW
    WHEN (NEW.authenticator IS DISTINCT FROM OLD.authenticator
          OR (NEW.disabled AND NOT OLD.disabled))
    EXECUTE FUNCTION %1$I.hsc_users_links_end();
$f$, sch);
END
$do$;
