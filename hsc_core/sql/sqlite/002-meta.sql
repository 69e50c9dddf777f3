-- Version 2: the store id, which names this database in the login
-- throttle's per-user counters. Its one row is inserted by fill_step() in
-- hsc_store_sqlite.c: the id comes from hsc_random, not from SQL.
-- Released: never edit; add a new file instead.
CREATE TABLE hsc_meta (
 id INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
 store_id TEXT NOT NULL
  CHECK (typeof(store_id) = 'text' AND length(store_id) = 32
         AND store_id NOT GLOB '*[^0-9a-f]*')
);
