-- Version 6: passkeys, WebAuthn credentials (issue 21; hsc_passkeys.h,
-- docs/dev/passkeys.md). A login reads a credential by its id (the
-- primary key); the account page lists a user's. The one-time rule's
-- frequent write (the last accepted challenge's time and the sign count)
-- is not here but in the state file "<file>-state" (hsc_passkey_used,
-- like hsc_totp_used), so that a passkey login never commits to this
-- file, whose every commit empties the record caches. sign_count here is
-- the count at registration.
--
-- hsc_users.passkey_seals is the concatenation of the user's credentials'
-- seal hashes (SHA-256(z), 32 bytes each, oldest credential first; NULL
-- when none), read with the user's row on every request that carries a
-- sealed cookie; the store rewrites it in the transaction of every add
-- and remove (hsc_passkeys_sqlite.c), and the trigger below on the
-- deletion of a user's credentials by other means.
--
-- The user handle (WebAuthn's user.id) is 32 random bytes per user, made
-- at the user's first credential and kept while the user exists.
-- Released: never edit; add a new file instead.
ALTER TABLE hsc_users ADD COLUMN passkey_seals BLOB
 CHECK (passkey_seals IS NULL OR (typeof(passkey_seals) = 'blob'
        AND length(passkey_seals) BETWEEN 32 AND 32 * 64
        AND length(passkey_seals) % 32 = 0));
CREATE TABLE hsc_passkey_users (
 username TEXT NOT NULL PRIMARY KEY,
 handle BLOB NOT NULL UNIQUE
  CHECK (typeof(handle) = 'blob' AND length(handle) = 32)
) WITHOUT ROWID;
CREATE TABLE hsc_passkeys (
 cred_id BLOB NOT NULL PRIMARY KEY
  CHECK (typeof(cred_id) = 'blob' AND length(cred_id) BETWEEN 1 AND 1023),
 username TEXT NOT NULL,
 alg INTEGER NOT NULL CHECK (alg IN (-7, -8, -257)),
 spki BLOB NOT NULL
  CHECK (typeof(spki) = 'blob' AND length(spki) BETWEEN 1 AND 1024),
 sign_count INTEGER NOT NULL DEFAULT 0
  CHECK (typeof(sign_count) = 'integer'
         AND sign_count BETWEEN 0 AND 4294967295),
 be INTEGER NOT NULL DEFAULT 0 CHECK (be IN (0, 1)),
 bs INTEGER NOT NULL DEFAULT 0 CHECK (bs IN (0, 1)),
 uv INTEGER NOT NULL DEFAULT 0 CHECK (uv IN (0, 1)),
 transports TEXT NOT NULL DEFAULT '' CHECK (length(transports) <= 128),
 prf INTEGER NOT NULL DEFAULT 0 CHECK (prf IN (0, 1)),
 seal_hash BLOB
  CHECK (seal_hash IS NULL OR (typeof(seal_hash) = 'blob'
         AND length(seal_hash) = 32)),
 name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
 created INTEGER NOT NULL CHECK (typeof(created) = 'integer')
) WITHOUT ROWID;
CREATE INDEX hsc_passkeys_user ON hsc_passkeys (username, created);
CREATE TRIGGER hsc_users_passkeys_go AFTER DELETE ON hsc_users
BEGIN
 DELETE FROM hsc_passkeys WHERE username = old.username;
 DELETE FROM hsc_passkey_users WHERE username = old.username;
END;
