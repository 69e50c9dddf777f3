-- mod_hsc PostgreSQL schema, version 9: a one-time enrolment link adds a
-- user's first passkey (issue 21; hsc_passkeys.h, hsc_passkeys_add_by_link;
-- docs/dev/passkeys.md), as SQLite does without a schema step.
--
-- hsc_passkey_add_link is the httpd role's only way to add a passkey
-- without the user's x_n: in its one transaction it deletes the link's
-- row (an enrolment link of that user, valid by the database's clock) and
-- inserts the credential, so that a link used twice adds at most one
-- passkey, and a refusal (the user has a passkey, the id is taken) keeps
-- the link. The table keeps only the link's SHA-256: a stolen httpd role,
-- key file or table cannot make a link, so cannot add a credential.
--
-- Whoever may call hsc_revoke (the httpd role of the docs) may call it.
DO $do$
DECLARE
    sch text := current_schema();
    grantee text;
    fn text := format('%1$I.hsc_passkey_add_link(bytea, text, bytea, bytea, '
        'integer, bytea, bigint, boolean, boolean, boolean, text, boolean, '
        'bytea, text, bigint)', sch);
BEGIN
    EXECUTE format($f$
-- 'ok'; 'link' (no valid enrolment link of who, or who is not an enabled
-- user); 'has' (who has a passkey already: a link adds only the first);
-- 'exists' (the credential id is registered already). Only 'ok' uses the
-- link.
CREATE FUNCTION %1$I.hsc_passkey_add_link(token bytea, who text,
                                          new_handle bytea, id bytea,
                                          c_alg integer, c_spki bytea,
                                          c_count bigint, c_be boolean,
                                          c_bs boolean, c_uv boolean,
                                          c_transports text, c_prf boolean,
                                          c_seal bytea, c_name text,
                                          created_at bigint)
RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp
AS $body$
BEGIN
    -- The link first, its row locked: of two uses, the second waits
    -- here and then finds it gone.
    PERFORM 1 FROM %1$I.hsc_links
      WHERE token_hash = token AND username = who AND purpose = 'enrol'
        AND expires > extract(epoch FROM now())::bigint
      FOR UPDATE;
    IF NOT FOUND THEN
        RETURN 'link';
    END IF;
    PERFORM 1 FROM %1$I.hsc_users
      WHERE username = who AND NOT disabled FOR KEY SHARE;
    IF NOT FOUND THEN
        RETURN 'link';
    END IF;
    PERFORM 1 FROM %1$I.hsc_passkeys WHERE username = who;
    IF FOUND THEN
        RETURN 'has';
    END IF;
    PERFORM 1 FROM %1$I.hsc_passkeys WHERE cred_id = id;
    IF FOUND THEN
        RETURN 'exists';
    END IF;
    DELETE FROM %1$I.hsc_links WHERE token_hash = token;
    -- A conflict now (another add between) undoes the link's delete too.
    INSERT INTO %1$I.hsc_passkeys
           (cred_id, username, alg, spki, sign_count, be, bs, uv,
            transports, prf, seal_hash, name, created)
    VALUES (id, who, c_alg, c_spki, c_count, c_be, c_bs, c_uv,
            c_transports, c_prf, c_seal, c_name, created_at);
    INSERT INTO %1$I.hsc_passkey_users (username, handle)
    VALUES (who, new_handle) ON CONFLICT (username) DO NOTHING;
    RETURN 'ok';
END
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
