-- mod_hsc PostgreSQL schema, version 7: passkeys, WebAuthn credentials
-- (issue 21; hsc_passkeys.h, docs/dev/passkeys.md), as SQLite's version 6.
--
-- hsc_passkeys holds a credential by its id (the primary key); sign_count
-- and last_challenge (the issue time in ms of the last accepted
-- challenge) are the one-time rule's state, changed only by
-- hsc_passkey_accept's compare-and-set. That table is not hsc_users, so
-- a login's write never reaches the change log. hsc_users.passkey_seals
-- is the concatenation of the user's seal hashes (SHA-256(z), 32 bytes
-- each, oldest credential first; NULL when none), read with the user's
-- row on a request; the trigger hsc_passkeys_seals keeps it right in the
-- transaction of every insert, delete or change of a seal hash, however
-- made (a function, hsc-admin, a user's deletion). Its UPDATE of
-- hsc_users is logged as any other, so the nodes' record caches forget
-- the user. hsc_passkey_users holds the user handle (32 random bytes, made
-- at the user's first credential; never the name).
--
-- The httpd role gets no right on the tables. It calls: hsc_passkeys_of
-- (one user's list: no key, no seal hash), hsc_passkey_get (one by id:
-- what a passwordless login needs), hsc_passkey_add (a user's own,
-- proved by x_n as hsc_token_add is), hsc_passkey_accept (the
-- compare-and-set), hsc_passkey_rename and hsc_passkey_remove (one of
-- the user's own). A stolen httpd role can remove a user's passkeys (a
-- nuisance, as hsc_token_revoke is), not add one without the user's x_n.
--
-- Whoever may call hsc_revoke (the httpd role of the docs) may call the
-- functions, so an upgrade needs no new GRANT.
DO $do$
DECLARE
    sch text := current_schema();
    grantee text;
    -- Every function below, as REVOKE and GRANT name them.
    fns text := format('%1$I.hsc_passkeys_of(text), '
        '%1$I.hsc_passkey_get(bytea), '
        '%1$I.hsc_passkey_add(text, bytea, bytea, bytea, integer, bytea, '
        'bigint, boolean, boolean, boolean, text, boolean, bytea, text, '
        'bigint), '
        '%1$I.hsc_passkey_accept(bytea, bigint, bigint), '
        '%1$I.hsc_passkey_rename(text, bytea, text), '
        '%1$I.hsc_passkey_remove(text, bytea)', sch);
BEGIN
    EXECUTE format($f$
ALTER TABLE %1$I.hsc_users ADD COLUMN passkey_seals bytea
    CHECK (passkey_seals IS NULL OR (octet_length(passkey_seals)
           BETWEEN 32 AND 32 * 64 AND octet_length(passkey_seals) %% 32 = 0));

CREATE TABLE %1$I.hsc_passkey_users (
    username text COLLATE "C" PRIMARY KEY
        REFERENCES %1$I.hsc_users ON DELETE CASCADE,
    handle bytea NOT NULL UNIQUE CHECK (octet_length(handle) = 32)
);

CREATE TABLE %1$I.hsc_passkeys (
    cred_id bytea PRIMARY KEY
        CHECK (octet_length(cred_id) BETWEEN 1 AND 1023),
    username text COLLATE "C" NOT NULL
        REFERENCES %1$I.hsc_users ON DELETE CASCADE,
    alg integer NOT NULL CHECK (alg IN (-7, -8, -257)),
    spki bytea NOT NULL CHECK (octet_length(spki) BETWEEN 1 AND 1024),
    sign_count bigint NOT NULL DEFAULT 0
        CHECK (sign_count BETWEEN 0 AND 4294967295),
    be boolean NOT NULL DEFAULT false,
    bs boolean NOT NULL DEFAULT false,
    uv boolean NOT NULL DEFAULT false,
    transports text NOT NULL DEFAULT ''
        CHECK (octet_length(transports) <= 128),
    prf boolean NOT NULL DEFAULT false,
    seal_hash bytea CHECK (octet_length(seal_hash) = 32),
    name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 64),
    created bigint NOT NULL,
    last_challenge bigint NOT NULL DEFAULT 0
);
CREATE INDEX hsc_passkeys_user ON %1$I.hsc_passkeys (username, created);

-- The user's seal hashes into the user's row.
CREATE FUNCTION %1$I.hsc_passkeys_seals() RETURNS trigger
LANGUAGE plpgsql SECURITY INVOKER SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
DECLARE
    who text := CASE WHEN TG_OP = 'DELETE' THEN OLD.username
                     ELSE NEW.username END;
BEGIN
    UPDATE %1$I.hsc_users u
       SET passkey_seals = (SELECT string_agg(p.seal_hash, ''::bytea
                                              ORDER BY p.created, p.cred_id)
                              FROM %1$I.hsc_passkeys p
                             WHERE p.username = who
                               AND p.seal_hash IS NOT NULL)
     WHERE u.username = who
       AND u.passkey_seals IS DISTINCT FROM
           (SELECT string_agg(p.seal_hash, ''::bytea
                              ORDER BY p.created, p.cred_id)
              FROM %1$I.hsc_passkeys p
             WHERE p.username = who AND p.seal_hash IS NOT NULL);
    IF TG_OP = 'UPDATE' AND OLD.username IS DISTINCT FROM NEW.username THEN
        UPDATE %1$I.hsc_users u
           SET passkey_seals = (SELECT string_agg(p.seal_hash, ''::bytea
                                                  ORDER BY p.created,
                                                           p.cred_id)
                                  FROM %1$I.hsc_passkeys p
                                 WHERE p.username = OLD.username
                                   AND p.seal_hash IS NOT NULL)
         WHERE u.username = OLD.username;
    END IF;
    RETURN NULL;
END
$body$;
CREATE TRIGGER hsc_passkeys_seals
    AFTER INSERT OR DELETE OR UPDATE OF seal_hash, username
    ON %1$I.hsc_passkeys
    FOR EACH ROW EXECUTE FUNCTION %1$I.hsc_passkeys_seals();

-- who's credentials, oldest first: what a list shows and what a
-- second-factor login's allowCredentials needs; never the key or the
-- seal hash (sealed says whether there is one).
CREATE FUNCTION %1$I.hsc_passkeys_of(who text)
RETURNS TABLE (cred_id bytea, alg integer, sign_count bigint, be boolean,
               bs boolean, uv boolean, transports text, prf boolean,
               sealed boolean, name text, created bigint)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
    SELECT p.cred_id, p.alg, p.sign_count, p.be, p.bs, p.uv, p.transports,
           p.prf, p.seal_hash IS NOT NULL, p.name, p.created
      FROM %1$I.hsc_passkeys p WHERE p.username = who
     ORDER BY p.created, p.cred_id
$body$;

-- One credential by its id, with its owner's handle: what an assertion
-- is checked with (a passwordless login knows only the id). No row when
-- there is no such credential.
CREATE FUNCTION %1$I.hsc_passkey_get(id bytea)
RETURNS TABLE (cred_id bytea, username text, handle bytea, alg integer,
               spki bytea, sign_count bigint, be boolean, bs boolean,
               uv boolean, transports text, prf boolean, seal_hash bytea,
               name text, created bigint)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
    SELECT p.cred_id, p.username, h.handle, p.alg, p.spki, p.sign_count,
           p.be, p.bs, p.uv, p.transports, p.prf, p.seal_hash, p.name,
           p.created
      FROM %1$I.hsc_passkeys p
      JOIN %1$I.hsc_passkey_users h ON h.username = p.username
     WHERE p.cred_id = id
$body$;

-- A new credential of who's, proved by who's x_n (as hsc_token_add):
-- true when stored; false when the id is registered already (to anyone);
-- NULL when who is unknown, disabled, or xn is not the current
-- password's. The user's handle is made from new_handle when the user
-- has none (new_handle: 32 random bytes the caller drew).
CREATE FUNCTION %1$I.hsc_passkey_add(who text, xn bytea, new_handle bytea,
                                     id bytea, c_alg integer, c_spki bytea,
                                     c_count bigint, c_be boolean,
                                     c_bs boolean, c_uv boolean,
                                     c_transports text, c_prf boolean,
                                     c_seal bytea, c_name text,
                                     created_at bigint)
RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
BEGIN
    PERFORM 1 FROM %1$I.hsc_users
      WHERE username = who AND NOT disabled AND authenticator = sha256(xn)
      FOR KEY SHARE;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    INSERT INTO %1$I.hsc_passkeys
           (cred_id, username, alg, spki, sign_count, be, bs, uv,
            transports, prf, seal_hash, name, created)
    VALUES (id, who, c_alg, c_spki, c_count, c_be, c_bs, c_uv,
            c_transports, c_prf, c_seal, c_name, created_at)
    ON CONFLICT (cred_id) DO NOTHING;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    INSERT INTO %1$I.hsc_passkey_users (username, handle)
    VALUES (who, new_handle) ON CONFLICT (username) DO NOTHING;
    RETURN true;
END
$body$;

-- The one-time rule: accept an assertion of credential id made for a
-- challenge issued at challenge_ms with the authenticator's new_count,
-- only when challenge_ms is later than the last accepted one and (when
-- either count is not zero) new_count is greater than the stored one.
-- One statement; of two servers with the same assertion, one row
-- changes. True when accepted, NULL when refused (or no such id).
CREATE FUNCTION %1$I.hsc_passkey_accept(id bytea, challenge_ms bigint,
                                        new_count bigint)
RETURNS boolean
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
    UPDATE %1$I.hsc_passkeys p
       SET last_challenge = challenge_ms, sign_count = new_count
     WHERE p.cred_id = id AND p.last_challenge < challenge_ms
       AND new_count BETWEEN 0 AND 4294967295
       AND ((p.sign_count = 0 AND new_count = 0)
            OR new_count > p.sign_count)
    RETURNING true
$body$;

-- Rename who's credential id: true, or NULL when who has no such one.
CREATE FUNCTION %1$I.hsc_passkey_rename(who text, id bytea, new_name text)
RETURNS boolean
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
    UPDATE %1$I.hsc_passkeys SET name = new_name
     WHERE cred_id = id AND username = who
    RETURNING true
$body$;

-- Remove who's credential id: true, or NULL when who has no such one.
CREATE FUNCTION %1$I.hsc_passkey_remove(who text, id bytea)
RETURNS boolean
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
    DELETE FROM %1$I.hsc_passkeys WHERE cred_id = id AND username = who
    RETURNING true
$body$;

$f$, sch);

    -- Only the roles granted below may call them.
    EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', fns);
    FOR grantee IN
        SELECT DISTINCT a.grantee::regrole::text
          FROM pg_proc p
          JOIN pg_namespace n ON n.oid = p.pronamespace
          CROSS JOIN LATERAL aclexplode(p.proacl) a
         WHERE n.nspname = sch AND p.proname = 'hsc_revoke'
           AND a.privilege_type = 'EXECUTE'
           AND a.grantee <> 0 AND a.grantee <> p.proowner
    LOOP
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %s', fns, grantee);
    END LOOP;
END
$do$;
