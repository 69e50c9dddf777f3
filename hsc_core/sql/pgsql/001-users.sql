-- mod_hsc PostgreSQL schema, version 1 (docs/several-servers.md).
-- Applied once by "hsc-admin init" inside one transaction that holds the
-- advisory lock 1213416241 ("HSC1"). Released files are never edited: a
-- change is a new file, 002-..., applied in order.

-- Which files have been applied.
CREATE TABLE hsc_schema (
    version integer PRIMARY KEY,
    applied timestamptz NOT NULL DEFAULT now()
);

-- One row: this store's id, a random name that throttle counters and
-- caches key on instead of the conninfo text (two spellings of one
-- database share it; a restored or replaced database gets its own).
CREATE TABLE hsc_meta (
    id integer PRIMARY KEY CHECK (id = 1),
    store_id text NOT NULL CHECK (store_id ~ '^[0-9a-f]{32}$')
);
INSERT INTO hsc_meta VALUES (1, replace(gen_random_uuid()::text, '-', ''));

-- The users, as in the SQLite store (docs/spec/schema.md). Names compare byte
-- for byte: COLLATE "C".
CREATE TABLE hsc_users (
    username text COLLATE "C" PRIMARY KEY
        CHECK (octet_length(username) BETWEEN 1 AND 255),
    salt bytea NOT NULL CHECK (octet_length(salt) = 16),
    kdf text NOT NULL CHECK (octet_length(kdf) BETWEEN 1 AND 63),
    authenticator bytea NOT NULL CHECK (octet_length(authenticator) = 32),
    groups text NOT NULL DEFAULT '' CHECK (octet_length(groups) <= 65535),
    disabled boolean NOT NULL DEFAULT false,
    revoked_before bigint NOT NULL DEFAULT 0 CHECK (revoked_before >= 0),
    created bigint NOT NULL,
    updated bigint NOT NULL
);

-- The change log that bounds how stale a node's record cache may be.
-- Every change to hsc_users takes the next number from the one row of
-- hsc_generation. Its row lock is held until the changing transaction
-- ends, so a second writer waits for the first to commit before it draws
-- its number: numbers are handed out in commit order, and a reader that
-- sees generation g has seen every change numbered g or less (a sequence
-- or bigserial would not promise that).
CREATE TABLE hsc_generation (
    id integer PRIMARY KEY CHECK (id = 1),
    generation bigint NOT NULL
);
INSERT INTO hsc_generation VALUES (1, 0);

CREATE TABLE hsc_changes (
    generation bigint PRIMARY KEY,
    username text COLLATE "C" NOT NULL,
    changed timestamptz NOT NULL DEFAULT now()
);

-- SECURITY DEFINER: the httpd role may update revoked_before ("log out
-- everywhere") without any right on the two tables above. The search path
-- is pinned so that a caller cannot substitute its own tables.
CREATE FUNCTION hsc_users_changed() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
    g bigint;
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE hsc_generation SET generation = generation + 1 WHERE id = 1
            RETURNING generation INTO g;
        INSERT INTO hsc_changes (generation, username) VALUES (g, OLD.username);
    END IF;
    IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE'
                            AND NEW.username IS DISTINCT FROM OLD.username) THEN
        UPDATE hsc_generation SET generation = generation + 1 WHERE id = 1
            RETURNING generation INTO g;
        INSERT INTO hsc_changes (generation, username) VALUES (g, NEW.username);
    END IF;
    -- Keep the log short: a node further behind than this drops its whole
    -- cache anyway (it asks only for the last 1,000 changes).
    DELETE FROM hsc_changes WHERE generation <= g - 100000;
    RETURN NULL;
END
$$;

CREATE TRIGGER hsc_users_changed
    AFTER INSERT OR UPDATE OR DELETE ON hsc_users
    FOR EACH ROW EXECUTE FUNCTION hsc_users_changed();
