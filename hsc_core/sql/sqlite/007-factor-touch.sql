-- Version 7: a change to a user's second factors touches the user's row.
-- Whatever keeps a credential check per child (HSCBasicPassword's cache,
-- mod_hsc_basicpw.c) holds it only while the row's updated is the same,
-- so a factor set up or removed takes effect on the next request in
-- every child, as a new password does. Only what decides whether the
-- user has a factor fires: a TOTP enrolment and its activation, recovery
-- codes made or used, a passkey added or removed (never a login's
-- frequent writes, which go to the state file). updated always grows.
-- Released: never edit; add a new file instead.
CREATE TRIGGER IF NOT EXISTS hsc_totp_touch_ins AFTER INSERT ON hsc_totp
BEGIN
 UPDATE hsc_users SET updated = max(updated + 1, CAST(strftime('%s', 'now') AS INTEGER))
  WHERE username = new.username;
END;
CREATE TRIGGER IF NOT EXISTS hsc_totp_touch_upd AFTER UPDATE OF active ON hsc_totp
BEGIN
 UPDATE hsc_users SET updated = max(updated + 1, CAST(strftime('%s', 'now') AS INTEGER))
  WHERE username = new.username;
END;
CREATE TRIGGER IF NOT EXISTS hsc_totp_touch_del AFTER DELETE ON hsc_totp
BEGIN
 UPDATE hsc_users SET updated = max(updated + 1, CAST(strftime('%s', 'now') AS INTEGER))
  WHERE username = old.username;
END;
CREATE TRIGGER IF NOT EXISTS hsc_recovery_touch_ins AFTER INSERT ON hsc_recovery
BEGIN
 UPDATE hsc_users SET updated = max(updated + 1, CAST(strftime('%s', 'now') AS INTEGER))
  WHERE username = new.username;
END;
CREATE TRIGGER IF NOT EXISTS hsc_recovery_touch_del AFTER DELETE ON hsc_recovery
BEGIN
 UPDATE hsc_users SET updated = max(updated + 1, CAST(strftime('%s', 'now') AS INTEGER))
  WHERE username = old.username;
END;
CREATE TRIGGER IF NOT EXISTS hsc_passkeys_touch_ins AFTER INSERT ON hsc_passkeys
BEGIN
 UPDATE hsc_users SET updated = max(updated + 1, CAST(strftime('%s', 'now') AS INTEGER))
  WHERE username = new.username;
END;
CREATE TRIGGER IF NOT EXISTS hsc_passkeys_touch_del AFTER DELETE ON hsc_passkeys
BEGIN
 UPDATE hsc_users SET updated = max(updated + 1, CAST(strftime('%s', 'now') AS INTEGER))
  WHERE username = old.username;
END;
