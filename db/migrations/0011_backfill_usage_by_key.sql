-- Per-key usage of months counted before keys were counted apart: what an
-- account's month counts beyond the sum of its keys of that mode is
-- attributed to its key of that mode used most recently (then the oldest),
-- so each month's per-key totals add up to the account's. Accounts without
-- a key of that mode keep the remainder on the account only.
INSERT INTO "usage_by_key" AS k ("key_id", "month", "count")
SELECT DISTINCT ON (m."account_id", m."month", a."mode")
  a."id", m."month",
  (CASE a."mode" WHEN 'live' THEN m."count" ELSE m."test_count" END)
    - coalesce((
      SELECT sum(b."count") FROM "usage_by_key" b
      JOIN "api_keys" o ON o."id" = b."key_id"
      WHERE o."account_id" = m."account_id" AND o."mode" = a."mode"
        AND b."month" = m."month"), 0)
FROM "usage_monthly" m
JOIN "api_keys" a ON a."account_id" = m."account_id"
WHERE (CASE a."mode" WHEN 'live' THEN m."count" ELSE m."test_count" END)
  > coalesce((
    SELECT sum(b."count") FROM "usage_by_key" b
    JOIN "api_keys" o ON o."id" = b."key_id"
    WHERE o."account_id" = m."account_id" AND o."mode" = a."mode"
      AND b."month" = m."month"), 0)
ORDER BY m."account_id", m."month", a."mode",
  a."last_used_at" DESC NULLS LAST, a."created_at", a."id"
ON CONFLICT ("key_id", "month") DO UPDATE SET "count" = k."count" + excluded."count";
