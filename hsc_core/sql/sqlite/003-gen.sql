-- Version 3: the revocation generation of format 2 cookies (hsc-v2.md).
-- Every revocation raises gen by one in the statement that raises
-- revoked_before; a format 2 cookie carries the gen it was minted under
-- and is refused once the user's differs. Existing users start at 0.
-- Released: never edit; add a new file instead.
ALTER TABLE hsc_users ADD COLUMN gen INTEGER NOT NULL DEFAULT 0
 CHECK (typeof(gen) = 'integer' AND gen >= 0);
