-- mod_hsc PostgreSQL schema, version 6: a user's own app passwords from
-- the account page (docs/app-passwords.md), as the httpd role. No table
-- changes; SQLite's file stays at version 5 (its web server writes the
-- file itself, and checks the same proof in the statement that inserts:
-- hsc_tokens_sqlite.c).
--
-- A token opens sessions, so the httpd role must not be able to make one
-- for anyone: hsc_token_add inserts only with the user's x_n (the cookie
-- carries it; the database compares SHA-256(x_n) with the stored
-- authenticator, as hsc_password_change does), and only for an enabled
-- user. The role still has no right on hsc_tokens: it lists a user's
-- tokens through hsc_tokens_of (never a secret's hash) and revokes one of
-- that user's through hsc_token_revoke. A stolen httpd role can revoke
-- tokens (a nuisance, as hsc_revoke's "log out everywhere" is), not make
-- or un-revoke one. A revocation's time is bounded by the database's clock
-- (at most a minute ahead), as a use's is in hsc_token_touch.
--
-- Whoever may call hsc_revoke (the httpd role of the docs) may call the
-- three functions, so an upgrade needs no new GRANT.
DO $do$
DECLARE
    sch text := current_schema();
    grantee text;
    -- Every function below, as REVOKE and GRANT name them.
    fns text := format('%1$I.hsc_token_add(text, bytea, text, bytea, text, '
        'text, bigint, bigint), %1$I.hsc_tokens_of(text), '
        '%1$I.hsc_token_revoke(text, text, bigint)', sch);
BEGIN
    EXECUTE format($f$
-- A new token of who's, proved by who's x_n: true when stored; false when
-- the id is taken or a live token of who's has that name; NULL when who
-- is unknown, disabled, or xn is not the current password's (one answer:
-- the caller learns nothing more).
CREATE FUNCTION %1$I.hsc_token_add(who text, xn bytea, token_id text,
                                   token_hash bytea, token_name text,
                                   token_scopes text, expires_at bigint,
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
    INSERT INTO %1$I.hsc_tokens
           (id, username, name, secret_hash, scopes, created, expires,
            revoked)
    VALUES (token_id, who, token_name, token_hash, token_scopes, created_at,
            expires_at, 0)
    ON CONFLICT DO NOTHING;
    RETURN FOUND;
END
$body$;

-- who's tokens, live and revoked, oldest first: everything but the
-- secret's hash.
CREATE FUNCTION %1$I.hsc_tokens_of(who text)
RETURNS TABLE (id text, username text, name text, scopes text,
               created bigint, expires bigint, revoked bigint)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
    SELECT t.id, t.username, t.name, t.scopes, t.created, t.expires,
           t.revoked
      FROM %1$I.hsc_tokens t WHERE t.username = who
     ORDER BY t.created, t.id
$body$;

-- Revoke who's live token token_id as of revoked_at (at least 1, at most
-- a minute past the database's clock): true, or NULL when who has no
-- such live token (another user's id changes nothing).
CREATE FUNCTION %1$I.hsc_token_revoke(who text, token_id text,
                                      revoked_at bigint)
RETURNS boolean
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
    UPDATE %1$I.hsc_tokens
       SET revoked = greatest(least(revoked_at,
                                    extract(epoch FROM now())::bigint + 60),
                              1)
     WHERE id = token_id AND username = who AND revoked = 0
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
