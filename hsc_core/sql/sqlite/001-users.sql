-- Version 1 of the SQLite user database: the user table. Applied by
-- hsc_store_sqlite.c (through build-aux/sql2c.sh) to a file whose
-- user_version is 0. Released: never edit; add a new file instead.
CREATE TABLE hsc_users (
 username TEXT NOT NULL PRIMARY KEY
  CHECK (typeof(username) = 'text'
         AND length(CAST(username AS BLOB)) BETWEEN 1 AND 255),
 salt BLOB(16) NOT NULL
  CHECK (typeof(salt) = 'blob' AND length(salt) = 16),
 kdf TEXT NOT NULL
  CHECK (typeof(kdf) = 'text' AND length(kdf) BETWEEN 1 AND 63),
 authenticator BLOB(32) NOT NULL
  CHECK (typeof(authenticator) = 'blob'
         AND length(authenticator) = 32),
 groups TEXT NOT NULL DEFAULT ''
  CHECK (typeof(groups) = 'text'
         AND length(CAST(groups AS BLOB)) <= 65535),
 disabled INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
 revoked_before INTEGER NOT NULL DEFAULT 0
  CHECK (typeof(revoked_before) = 'integer' AND revoked_before >= 0),
 created INTEGER NOT NULL CHECK (typeof(created) = 'integer'),
 updated INTEGER NOT NULL CHECK (typeof(updated) = 'integer')
) WITHOUT ROWID;
