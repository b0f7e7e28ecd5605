-- When each API key last authenticated a request (issue 15: the keys page shows a key's
-- last use), in Unix milliseconds like every time column; NULL until its first use. The
-- facade writes it at most once a minute per key (store.TouchAPIKey), so it is exact to
-- the minute and authenticated traffic does not turn into a write per request.
ALTER TABLE api_keys ADD COLUMN last_used_at BIGINT;
