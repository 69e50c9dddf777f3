-- mod_hsc PostgreSQL schema, version 8: the per-user seal switch, "every
-- cookie of this user needs the seal" (issue 21; hsc_passkeys.h,
-- docs/dev/passkeys.md), as SQLite keeps it without a schema step.
--
-- The switch is a last block of 32 zero bytes in hsc_users.passkey_seals:
-- no z has SHA-256 zero, so the block never matches a cookie, and the
-- request path reads it with the row it reads already (no new column, no
-- new field in any cache). hsc_passkeys_seals, the trigger function of
-- version 7, now keeps the block while a sealed credential is left, so
-- the removal of the last one turns the switch off; the trigger
-- hsc_passkeys_sealed_only refuses a credential without a seal while it
-- is on (SQLSTATE 23514).
--
-- The httpd role may call hsc_passkey_seal_switch: on (only while the
-- user has a passkey and every one is sealed), off only with the z of one
-- of the user's passkeys, so that whoever holds the key file, the table,
-- the password and the httpd role still cannot take the switch away.
-- hsc_passkey_seal_off (off without z) is granted to nobody: the admin
-- role owns it (hsc-admin webauthn require-seal DB USER off).
DO $do$
DECLARE
    sch text := current_schema();
    grantee text;
BEGIN
    EXECUTE format($f$
CREATE OR REPLACE FUNCTION %1$I.hsc_passkeys_seals() RETURNS trigger
LANGUAGE plpgsql SECURITY INVOKER SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
DECLARE
    mark bytea := decode(repeat('00', 32), 'hex');
    who text;
    cur bytea;
    agg bytea;
BEGIN
    FOREACH who IN ARRAY
        CASE WHEN TG_OP = 'DELETE' THEN ARRAY[OLD.username]
             WHEN TG_OP = 'UPDATE'
                  AND OLD.username IS DISTINCT FROM NEW.username
             THEN ARRAY[NEW.username, OLD.username]
             ELSE ARRAY[NEW.username] END
    LOOP
        SELECT u.passkey_seals INTO cur FROM %1$I.hsc_users u
         WHERE u.username = who;
        SELECT string_agg(p.seal_hash, ''::bytea
                          ORDER BY p.created, p.cred_id) INTO agg
          FROM %1$I.hsc_passkeys p
         WHERE p.username = who AND p.seal_hash IS NOT NULL;
        IF agg IS NOT NULL AND octet_length(cur) >= 32
           AND substring(cur FROM octet_length(cur) - 31) = mark THEN
            agg := agg || mark;
        END IF;
        UPDATE %1$I.hsc_users u SET passkey_seals = agg
         WHERE u.username = who AND u.passkey_seals IS DISTINCT FROM agg;
    END LOOP;
    RETURN NULL;
END
$body$;

-- While the switch is on, every credential of the user has a seal.
CREATE FUNCTION %1$I.hsc_passkeys_sealed_only() RETURNS trigger
LANGUAGE plpgsql SECURITY INVOKER SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
BEGIN
    IF NEW.seal_hash IS NULL AND EXISTS (
           SELECT 1 FROM %1$I.hsc_users u
            WHERE u.username = NEW.username
              AND octet_length(u.passkey_seals) >= 32
              AND substring(u.passkey_seals
                            FROM octet_length(u.passkey_seals) - 31)
                  = decode(repeat('00', 32), 'hex')) THEN
        RAISE EXCEPTION 'hsc: every passkey of this user must be sealed '
                        '(the seal switch is on)'
              USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$body$;
CREATE TRIGGER hsc_passkeys_sealed_only
    BEFORE INSERT OR UPDATE OF seal_hash, username ON %1$I.hsc_passkeys
    FOR EACH ROW EXECUTE FUNCTION %1$I.hsc_passkeys_sealed_only();

-- who's switch: on (turn_on) only while who has a passkey, every one
-- sealed, and room for the block; off only with z whose SHA-256 is one of
-- who's seal hashes. 'ok' when it is so (also when it was already),
-- 'refused' otherwise, NULL when who is unknown.
CREATE FUNCTION %1$I.hsc_passkey_seal_switch(who text, turn_on boolean,
                                             z bytea)
RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
DECLARE
    mark bytea := decode(repeat('00', 32), 'hex');
    cur bytea;
    marked boolean;
    hit boolean := false;
    i integer;
BEGIN
    SELECT u.passkey_seals INTO cur FROM %1$I.hsc_users u
     WHERE u.username = who FOR UPDATE;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    marked := coalesce(octet_length(cur) >= 32
                       AND substring(cur FROM octet_length(cur) - 31) = mark,
                       false);
    IF turn_on IS NULL OR turn_on = marked THEN
        RETURN CASE WHEN turn_on IS NULL THEN 'refused' ELSE 'ok' END;
    END IF;
    IF turn_on THEN
        IF NOT EXISTS (SELECT 1 FROM %1$I.hsc_passkeys p
                        WHERE p.username = who)
           OR EXISTS (SELECT 1 FROM %1$I.hsc_passkeys p
                       WHERE p.username = who AND p.seal_hash IS NULL)
           OR cur IS NULL OR octet_length(cur) >= 32 * 64 THEN
            RETURN 'refused';
        END IF;
        UPDATE %1$I.hsc_users SET passkey_seals = cur || mark
         WHERE username = who;
        RETURN 'ok';
    END IF;
    IF z IS NULL OR octet_length(z) <> 32 THEN
        RETURN 'refused';
    END IF;
    FOR i IN 0 .. octet_length(cur) / 32 - 2 LOOP
        hit := hit OR substring(cur FROM i * 32 + 1 FOR 32) = sha256(z);
    END LOOP;
    IF NOT hit THEN
        RETURN 'refused';
    END IF;
    UPDATE %1$I.hsc_users
       SET passkey_seals = substring(cur FOR octet_length(cur) - 32)
     WHERE username = who;
    RETURN 'ok';
END
$body$;

-- The administrator's off, without z: 'ok', or NULL when who is unknown.
CREATE FUNCTION %1$I.hsc_passkey_seal_off(who text)
RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
BEGIN
    UPDATE %1$I.hsc_users u
       SET passkey_seals = substring(u.passkey_seals
                                     FOR octet_length(u.passkey_seals) - 32)
     WHERE u.username = who AND octet_length(u.passkey_seals) >= 32
       AND substring(u.passkey_seals FROM octet_length(u.passkey_seals) - 31)
           = decode(repeat('00', 32), 'hex');
    PERFORM 1 FROM %1$I.hsc_users WHERE username = who;
    RETURN CASE WHEN FOUND THEN 'ok' END;
END
$body$;
$f$, sch);

    EXECUTE format('REVOKE ALL ON FUNCTION %1$I.hsc_passkey_seal_switch(text, '
                   'boolean, bytea), %1$I.hsc_passkey_seal_off(text), '
                   '%1$I.hsc_passkeys_sealed_only() FROM PUBLIC', sch);
    -- Whoever may call hsc_revoke (the httpd role of the docs) may turn
    -- the switch on, and off with a seal.
    FOR grantee IN
        SELECT DISTINCT a.grantee::regrole::text
          FROM pg_proc p
          JOIN pg_namespace n ON n.oid = p.pronamespace
          CROSS JOIN LATERAL aclexplode(p.proacl) a
         WHERE n.nspname = sch AND p.proname = 'hsc_revoke'
           AND a.privilege_type = 'EXECUTE'
           AND a.grantee <> 0 AND a.grantee <> p.proowner
    LOOP
        EXECUTE format('GRANT EXECUTE ON FUNCTION '
                       '%1$I.hsc_passkey_seal_switch(text, boolean, bytea) '
                       'TO %2$s', sch, grantee);
    END LOOP;
END
$do$;
