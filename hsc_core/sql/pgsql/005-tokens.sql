-- mod_hsc PostgreSQL schema, version 5: app passwords (hsc_token.h;
-- docs/app-passwords.md), as SQLite's version 5, and the activity table
-- of HSCActivityDB "pgsql:..." (hsc_activity.h).
--
-- A request with a token reads its row by id (the primary key) through
-- hsc_token_get, then its owner's row as a cookie would. The secret is
-- never stored: secret_hash is SHA-256 of its 32 bytes. A revoked token
-- keeps its row (listed, and its name free for a new one). The admin role
-- (the owner) writes hsc_tokens directly, as it does hsc_users; the httpd
-- role gets no right on either table: it reads a token by its id, never a
-- list, and records a use through hsc_token_touch, whose time only grows
-- and is bounded by the database's clock (a stolen role cannot pin a use
-- in the future). Using a token writes hsc_token_activity, never
-- hsc_tokens or hsc_users, so the change log and the nodes' record caches
-- never see it; no foreign key ties it to hsc_tokens (the activity table
-- may live in a database of its own).
--
-- Whoever may call hsc_revoke (the httpd role of the docs) may call the
-- two functions, so an upgrade needs no new GRANT.
DO $do$
DECLARE
    sch text := current_schema();
    grantee text;
    -- Every function below, as REVOKE and GRANT name them.
    fns text := format('%1$I.hsc_token_get(text), '
        '%1$I.hsc_token_touch(text, bigint, text)', sch);
BEGIN
    EXECUTE format($f$
CREATE TABLE %1$I.hsc_tokens (
    id text COLLATE "C" PRIMARY KEY CHECK (id ~ '^[a-z2-7]{16}$'),
    username text COLLATE "C" NOT NULL
        REFERENCES %1$I.hsc_users ON DELETE CASCADE,
    name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 64),
    secret_hash bytea NOT NULL CHECK (octet_length(secret_hash) = 32),
    scopes text NOT NULL DEFAULT '' CHECK (char_length(scopes) <= 255),
    created bigint NOT NULL,
    expires bigint NOT NULL DEFAULT 0,
    revoked bigint NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX hsc_tokens_live_name ON %1$I.hsc_tokens (username, name)
    WHERE revoked = 0;

CREATE TABLE %1$I.hsc_token_activity (
    id text COLLATE "C" PRIMARY KEY CHECK (id ~ '^[a-z2-7]{16}$'),
    last_at bigint NOT NULL CHECK (last_at >= 0),
    last_addr text NOT NULL DEFAULT ''
        CHECK (octet_length(last_addr) <= 64)
);

-- What a request with a token reads: its row, by id; no row when there
-- is no such token. Expiry and revocation are the caller's to check (the
-- row says both).
CREATE FUNCTION %1$I.hsc_token_get(token_id text)
RETURNS TABLE (id text, username text, name text, scopes text,
               secret_hash bytea, created bigint, expires bigint,
               revoked bigint)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
    SELECT t.id, t.username, t.name, t.scopes, t.secret_hash, t.created,
           t.expires, t.revoked
      FROM %1$I.hsc_tokens t WHERE t.id = token_id
$body$;

-- A use of token_id at used_at (Unix seconds, at most a minute past the
-- database's clock) from from_addr: the row's time only grows (a late touch
-- of an older use changes nothing). True when recorded, NULL when an
-- equal or later use was there already.
CREATE FUNCTION %1$I.hsc_token_touch(token_id text, used_at bigint,
                                     from_addr text)
RETURNS boolean
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
    INSERT INTO %1$I.hsc_token_activity AS a (id, last_at, last_addr)
    VALUES (token_id,
            least(used_at, extract(epoch FROM now())::bigint + 60),
            coalesce(from_addr, ''))
    ON CONFLICT (id) DO UPDATE
       SET last_at = excluded.last_at, last_addr = excluded.last_addr
     WHERE a.last_at < excluded.last_at
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
