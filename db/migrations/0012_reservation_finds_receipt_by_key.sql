-- Reserve looks up the request's receipt by its whole key (account, month,
-- hash), and the legacy form's by its own, each an equality on the primary
-- key. PostgreSQL 15 plans one lookup with `request_hash IN (hash, legacy)`,
-- on a table without statistics (until its first analyze), as a scan of
-- every receipt of the account's month filtered by hash: each request then
-- costs time in proportion to the invoices the account generated that
-- month. Otherwise the function is the same.
CREATE OR REPLACE FUNCTION "ink_reserve_generation"(
  p_account uuid, p_month text, p_hash text, p_legacy_hash text,
  p_limit integer, p_now timestamptz, p_ttl_ms integer
) RETURNS TABLE ("status" text, "used" integer)
LANGUAGE plpgsql AS $$
DECLARE
  v_settled boolean;
  v_expires timestamptz;
  v_legacy_settled boolean;
  v_legacy_expires timestamptz;
  v_used integer;
  v_open integer;
BEGIN
  PERFORM pg_advisory_xact_lock(
    hashtextextended(p_account::text || '/' || p_month, 0));
  SELECT coalesce((SELECT u.count FROM usage_monthly u
    WHERE u.account_id = p_account AND u.month = p_month), 0) INTO v_used;
  SELECT r.settled, r.expires_at INTO v_settled, v_expires
    FROM generation_receipts r
    WHERE r.account_id = p_account AND r.month = p_month
      AND r.request_hash = p_hash;
  -- A settled receipt under either form makes the request a replay; an
  -- open one under the legacy form counts only when the hash has none.
  IF p_legacy_hash IS NOT NULL AND v_settled IS DISTINCT FROM true THEN
    SELECT r.settled, r.expires_at INTO v_legacy_settled, v_legacy_expires
      FROM generation_receipts r
      WHERE r.account_id = p_account AND r.month = p_month
        AND r.request_hash = p_legacy_hash;
    IF v_legacy_settled OR v_settled IS NULL THEN
      v_settled := v_legacy_settled;
      v_expires := v_legacy_expires;
    END IF;
  END IF;
  IF v_settled THEN
    RETURN QUERY SELECT 'replay'::text, v_used;
    RETURN;
  END IF;
  IF v_settled = false AND v_expires > p_now THEN
    RETURN QUERY SELECT 'pending'::text, v_used;
    RETURN;
  END IF;
  SELECT count(*)::integer INTO v_open FROM generation_receipts r
    WHERE r.account_id = p_account AND r.month = p_month
      AND NOT r.settled AND r.expires_at > p_now;
  IF v_used + v_open >= p_limit THEN
    RETURN QUERY SELECT 'exhausted'::text, v_used;
    RETURN;
  END IF;
  INSERT INTO generation_receipts AS r
    (account_id, month, request_hash, settled, expires_at)
    VALUES (p_account, p_month, p_hash, false,
      p_now + p_ttl_ms * interval '1 millisecond')
    ON CONFLICT (account_id, month, request_hash) DO UPDATE
      SET expires_at = excluded.expires_at, created_at = now()
      WHERE NOT r.settled;
  RETURN QUERY SELECT 'reserved'::text, v_used;
END
$$;
