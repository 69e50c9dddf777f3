-- Version 5: app passwords (hsc_token.h; docs/app-passwords.md). A
-- request with a token reads its row by id (the primary key), then its
-- owner's row as a cookie would. The secret is never stored: secret_hash
-- is SHA-256 of its 32 bytes. A revoked token keeps its row (listed, and
-- its name free for a new one); last use is not kept here but in the
-- activity store (HSCActivityDB), so using a token never commits to this
-- file, whose every commit empties the record caches.
-- Released: never edit; add a new file instead.
CREATE TABLE hsc_tokens (
 id TEXT NOT NULL PRIMARY KEY
  CHECK (length(id) = 16 AND id NOT GLOB '*[^a-z2-7]*'),
 username TEXT NOT NULL,
 name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
 secret_hash BLOB NOT NULL
  CHECK (typeof(secret_hash) = 'blob' AND length(secret_hash) = 32),
 scopes TEXT NOT NULL DEFAULT '' CHECK (length(scopes) <= 255),
 created INTEGER NOT NULL CHECK (typeof(created) = 'integer'),
 expires INTEGER NOT NULL DEFAULT 0 CHECK (typeof(expires) = 'integer'),
 revoked INTEGER NOT NULL DEFAULT 0 CHECK (typeof(revoked) = 'integer')
) WITHOUT ROWID;
CREATE UNIQUE INDEX hsc_tokens_live_name ON hsc_tokens (username, name)
 WHERE revoked = 0;
CREATE TRIGGER hsc_users_tokens_go AFTER DELETE ON hsc_users
BEGIN
 DELETE FROM hsc_tokens WHERE username = old.username;
END;
