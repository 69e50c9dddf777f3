-- mod_hsc PostgreSQL schema, version 4: second factors and one-time links
-- (docs/spec/hsc-v2.md; docs/dev/second-factors.md), as SQLite's version 4.
--
-- The httpd role gets no right on these tables. Everything a web server
-- does with them is one of the SECURITY DEFINER functions below, each one
-- statement's worth of work with the search path pinned (pg_temp last),
-- so that a stolen httpd role can only do what the login and the account
-- page do: it cannot lower TOTP's last step (replay a code), turn an
-- active authenticator into one of its own, mint a link, or set a password
-- without the current one (hsc_password_change checks SHA-256(x_n) against
-- the authenticator) or a link's secret. Expiry is the database's clock,
-- not a caller's argument.
--
-- hsc_totp_used is the one frequent write (every TOTP login): it is not
-- hsc_users, so the change log and the nodes' record caches never see it.
-- A user's rows go with the user (ON DELETE CASCADE).
--
-- Whoever may call hsc_revoke (the httpd role of the docs) may call the
-- functions the web server needs, so an upgrade needs no new GRANT.
DO $do$
DECLARE
    sch text := current_schema();
    grantee text;
    -- Every function below, as REVOKE and GRANT name them.
    fns text := format('%1$I.hsc_factors_of(text), '
        '%1$I.hsc_totp_begin(text, bytea, text, integer, integer), '
        '%1$I.hsc_totp_confirm(text), %1$I.hsc_totp_remove(text), '
        '%1$I.hsc_totp_accept(text, bigint), '
        '%1$I.hsc_recovery_use(text, bytea), '
        '%1$I.hsc_recovery_replace(text, bytea[]), '
        '%1$I.hsc_link_peek(bytea), %1$I.hsc_link_take(bytea, text), '
        '%1$I.hsc_link_password(bytea, text, bytea, text, bytea), '
        '%1$I.hsc_password_change(text, bytea, bytea, text, bytea)', sch);
BEGIN
    EXECUTE format($f$
CREATE TABLE %1$I.hsc_totp (
    username text COLLATE "C" PRIMARY KEY
        REFERENCES %1$I.hsc_users ON DELETE CASCADE,
    sealed bytea NOT NULL CHECK (octet_length(sealed) BETWEEN 1 AND 255),
    alg text NOT NULL CHECK (alg IN ('SHA1', 'SHA256', 'SHA512')),
    digits integer NOT NULL CHECK (digits BETWEEN 6 AND 8),
    period integer NOT NULL CHECK (period BETWEEN 15 AND 300),
    active boolean NOT NULL DEFAULT false,
    created bigint NOT NULL
);

CREATE TABLE %1$I.hsc_totp_used (
    username text COLLATE "C" PRIMARY KEY
        REFERENCES %1$I.hsc_users ON DELETE CASCADE,
    last_at bigint NOT NULL
);

CREATE TABLE %1$I.hsc_recovery (
    code_hash bytea PRIMARY KEY CHECK (octet_length(code_hash) = 32),
    username text COLLATE "C" NOT NULL
        REFERENCES %1$I.hsc_users ON DELETE CASCADE,
    created bigint NOT NULL
);
CREATE INDEX hsc_recovery_user ON %1$I.hsc_recovery (username);

CREATE TABLE %1$I.hsc_links (
    token_hash bytea PRIMARY KEY CHECK (octet_length(token_hash) = 32),
    username text COLLATE "C" NOT NULL
        REFERENCES %1$I.hsc_users ON DELETE CASCADE,
    purpose text NOT NULL CHECK (purpose IN ('invite', 'reset', 'enrol')),
    expires bigint NOT NULL,
    created bigint NOT NULL,
    UNIQUE (username, purpose)
);

-- What a login and the account page read: the enrolment (its secret
-- sealed under the key file) and how many recovery codes are left. No row
-- when the user has neither.
CREATE FUNCTION %1$I.hsc_factors_of(who text)
RETURNS TABLE (sealed bytea, alg text, digits integer, period integer,
               active boolean, created bigint, recovery_left integer)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
    SELECT t.sealed, t.alg, t.digits, t.period, t.active, t.created,
           (SELECT count(*)::integer FROM %1$I.hsc_recovery r
             WHERE r.username = who)
      FROM (SELECT who) AS w
      LEFT JOIN %1$I.hsc_totp t ON t.username = who
$body$;

-- A new enrolment from the account page: inactive (a login asks nothing
-- of it until hsc_totp_confirm), replacing an inactive one, never an
-- active one. True when stored, false when an active one is there, NULL
-- when the user is unknown.
CREATE FUNCTION %1$I.hsc_totp_begin(who text, sealed_secret bytea,
                                    algorithm text, ndigits integer,
                                    seconds integer)
RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
BEGIN
    PERFORM 1 FROM %1$I.hsc_users WHERE username = who FOR KEY SHARE;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    INSERT INTO %1$I.hsc_totp AS t
           (username, sealed, alg, digits, period, active, created)
    VALUES (who, sealed_secret, algorithm, ndigits, seconds, false,
            extract(epoch FROM now())::bigint)
    ON CONFLICT (username) DO UPDATE
       SET sealed = excluded.sealed, alg = excluded.alg,
           digits = excluded.digits, period = excluded.period,
           created = excluded.created
     WHERE NOT t.active;
    RETURN FOUND;
END
$body$;

-- The first right code: the enrolment becomes active.
CREATE FUNCTION %1$I.hsc_totp_confirm(who text) RETURNS boolean
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
    UPDATE %1$I.hsc_totp SET active = true
     WHERE username = who AND NOT active
    RETURNING true
$body$;

CREATE FUNCTION %1$I.hsc_totp_remove(who text) RETURNS boolean
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
    DELETE FROM %1$I.hsc_totp WHERE username = who RETURNING true
$body$;

-- The replay guard: a code of the step starting at step_at is accepted
-- only when it is later than every step accepted before (one statement;
-- of two servers with the same code, one row changes). NULL: a replay.
CREATE FUNCTION %1$I.hsc_totp_accept(who text, step_at bigint)
RETURNS boolean
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
    INSERT INTO %1$I.hsc_totp_used AS t (username, last_at)
    SELECT u.username, step_at FROM %1$I.hsc_users u WHERE u.username = who
    ON CONFLICT (username) DO UPDATE SET last_at = excluded.last_at
     WHERE t.last_at < excluded.last_at
    RETURNING true
$body$;

-- A recovery code, once: the atomic delete of its hash.
CREATE FUNCTION %1$I.hsc_recovery_use(who text, hash bytea) RETURNS boolean
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
    DELETE FROM %1$I.hsc_recovery WHERE code_hash = hash AND username = who
    RETURNING true
$body$;

-- A new set of recovery codes replaces the old one. NULL: no such user.
CREATE FUNCTION %1$I.hsc_recovery_replace(who text, hashes bytea[])
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
DECLARE
    n integer;
BEGIN
    PERFORM 1 FROM %1$I.hsc_users WHERE username = who FOR KEY SHARE;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    DELETE FROM %1$I.hsc_recovery WHERE username = who;
    INSERT INTO %1$I.hsc_recovery (code_hash, username, created)
    SELECT h, who, extract(epoch FROM now())::bigint FROM unnest(hashes) AS h;
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END
$body$;

-- A link's holder (whose, for what) without using it; nothing when it is
-- unknown, used or expired.
CREATE FUNCTION %1$I.hsc_link_peek(token bytea)
RETURNS TABLE (username text, purpose text)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
    SELECT l.username, l.purpose FROM %1$I.hsc_links l
     WHERE l.token_hash = token
       AND l.expires > extract(epoch FROM now())::bigint
$body$;

-- Use a link: the atomic delete of its row; its user, or NULL.
CREATE FUNCTION %1$I.hsc_link_take(token bytea, for_purpose text)
RETURNS text
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
    DELETE FROM %1$I.hsc_links
     WHERE token_hash = token AND purpose = for_purpose
       AND expires > extract(epoch FROM now())::bigint
    RETURNING username
$body$;

-- An invitation or a reset: use the link and set its user's password in
-- one statement (gen grows: every session of the user ends). Its user, or
-- NULL when there is no such valid link.
CREATE FUNCTION %1$I.hsc_link_password(token bytea, for_purpose text,
                                       new_salt bytea, new_kdf text,
                                       new_authenticator bytea)
RETURNS text
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
    WITH taken AS (
        DELETE FROM %1$I.hsc_links
         WHERE token_hash = token AND purpose = for_purpose
           AND for_purpose IN ('invite', 'reset')
           AND expires > extract(epoch FROM now())::bigint
        RETURNING username)
    UPDATE %1$I.hsc_users u
       SET salt = new_salt, kdf = new_kdf, authenticator = new_authenticator,
           gen = u.gen + 1, updated = extract(epoch FROM now())::bigint
      FROM taken WHERE u.username = taken.username
    RETURNING u.username
$body$;

-- A password change from the account page: only with the current
-- password's x_n (whose SHA-256 is the stored authenticator), so the
-- httpd role alone cannot set anyone's password. gen grows.
CREATE FUNCTION %1$I.hsc_password_change(who text, current_xn bytea,
                                         new_salt bytea, new_kdf text,
                                         new_authenticator bytea)
RETURNS boolean
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
    UPDATE %1$I.hsc_users
       SET salt = new_salt, kdf = new_kdf, authenticator = new_authenticator,
           gen = gen + 1, updated = extract(epoch FROM now())::bigint
     WHERE username = who AND authenticator = sha256(current_xn)
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
