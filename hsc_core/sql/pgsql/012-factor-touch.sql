-- mod_hsc PostgreSQL schema, version 12: a change to a user's second
-- factors touches the user's row (docs/spec/schema.md), as SQLite's
-- version 7 does. Whatever keeps a credential check per child
-- (HSCBasicPassword's cache) holds it only while the row's updated is
-- the same; the change log (hsc_users_changed) then tells every node's
-- record cache, so a factor set up or removed takes effect within
-- HSCUserDBMaxStale everywhere. Only what decides whether the user has a
-- factor fires: a TOTP enrolment and its activation, recovery codes made
-- or used, a passkey added or removed; never a login's frequent writes
-- (hsc_totp_used, a passkey's last challenge). updated always grows.
-- The function runs as its owner, so the writes of the httpd role's
-- SECURITY DEFINER functions and of the admin role touch the row alike;
-- nobody may call it but as a trigger.
DO $do$
DECLARE
    sch text := current_schema();
BEGIN
    EXECUTE format($f$
CREATE FUNCTION %1$I.hsc_factor_touch()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
BEGIN
    UPDATE %1$I.hsc_users
       SET updated = greatest(updated + 1, extract(epoch FROM now())::bigint)
     WHERE username = CASE WHEN TG_OP = 'DELETE' THEN OLD.username
                           ELSE NEW.username END;
    RETURN NULL;
END
$body$;
REVOKE ALL ON FUNCTION %1$I.hsc_factor_touch() FROM PUBLIC;
CREATE TRIGGER hsc_totp_touch
    AFTER INSERT OR DELETE OR UPDATE OF active ON %1$I.hsc_totp
    FOR EACH ROW EXECUTE FUNCTION %1$I.hsc_factor_touch();
CREATE TRIGGER hsc_recovery_touch
    AFTER INSERT OR DELETE ON %1$I.hsc_recovery
    FOR EACH ROW EXECUTE FUNCTION %1$I.hsc_factor_touch();
CREATE TRIGGER hsc_passkeys_touch
    AFTER INSERT OR DELETE ON %1$I.hsc_passkeys
    FOR EACH ROW EXECUTE FUNCTION %1$I.hsc_factor_touch();
$f$, sch);
END
$do$;
