-- Version 4: second factors (hsc-v2.md; docs/dev/second-factors.md).
-- Only a login, the second-factor step, the account page and hsc-admin
-- read these tables; the per-request lookup never does. TOTP's last
-- accepted step is not kept here but in the state file beside this one
-- (hsc_factors_sqlite.c): every commit to this file empties the record
-- caches, and a TOTP login would make one. A user's rows go with the
-- user (the trigger: no PRAGMA foreign_keys needed on any connection).
-- Released: never edit; add a new file instead.
CREATE TABLE hsc_totp (
 username TEXT NOT NULL PRIMARY KEY,
 sealed BLOB NOT NULL
  CHECK (typeof(sealed) = 'blob' AND length(sealed) BETWEEN 1 AND 255),
 alg TEXT NOT NULL CHECK (alg IN ('SHA1', 'SHA256', 'SHA512')),
 digits INTEGER NOT NULL CHECK (digits BETWEEN 6 AND 8),
 period INTEGER NOT NULL CHECK (period BETWEEN 15 AND 300),
 active INTEGER NOT NULL DEFAULT 0 CHECK (active IN (0, 1)),
 created INTEGER NOT NULL CHECK (typeof(created) = 'integer')
) WITHOUT ROWID;
CREATE TABLE hsc_recovery (
 code_hash BLOB NOT NULL PRIMARY KEY
  CHECK (typeof(code_hash) = 'blob' AND length(code_hash) = 32),
 username TEXT NOT NULL,
 created INTEGER NOT NULL CHECK (typeof(created) = 'integer')
) WITHOUT ROWID;
CREATE INDEX hsc_recovery_user ON hsc_recovery (username);
CREATE TABLE hsc_links (
 token_hash BLOB NOT NULL PRIMARY KEY
  CHECK (typeof(token_hash) = 'blob' AND length(token_hash) = 32),
 username TEXT NOT NULL,
 purpose TEXT NOT NULL CHECK (purpose IN ('invite', 'reset', 'enrol')),
 expires INTEGER NOT NULL CHECK (typeof(expires) = 'integer'),
 created INTEGER NOT NULL CHECK (typeof(created) = 'integer'),
 UNIQUE (username, purpose)
) WITHOUT ROWID;
CREATE TRIGGER hsc_users_factors_go AFTER DELETE ON hsc_users
BEGIN
 DELETE FROM hsc_totp WHERE username = old.username;
 DELETE FROM hsc_recovery WHERE username = old.username;
 DELETE FROM hsc_links WHERE username = old.username;
END;
