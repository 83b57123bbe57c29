ALTER TABLE "generation_receipts" ADD COLUMN "settled" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "generation_receipts" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "generation_receipts_open_idx" ON "generation_receipts" USING btree ("account_id","month") WHERE not "generation_receipts"."settled";--> statement-breakpoint
-- A generation reserves one unit of its account's month and is charged when
-- its document was delivered. Both functions take a transaction-level
-- advisory lock per account and month, so the month's settled count and
-- its open reservations are read and changed by one request at a time on
-- every instance; each statement in them reads a fresh snapshot.
--
-- Reserve: a settled receipt (under the hash or its legacy form) is a free
-- replay; an open one is 'pending' (the same request is in flight: served,
-- charged once on delivery); otherwise one unit is reserved until p_now +
-- p_ttl_ms if settled units and open reservations leave room.
CREATE FUNCTION "ink_reserve_generation"(
  p_account uuid, p_month text, p_hash text, p_legacy_hash text,
  p_limit integer, p_now timestamptz, p_ttl_ms integer
) RETURNS TABLE ("status" text, "used" integer)
LANGUAGE plpgsql AS $$
DECLARE
  v_settled boolean;
  v_expires timestamptz;
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
      AND r.request_hash IN (p_hash, p_legacy_hash)
    ORDER BY r.settled DESC LIMIT 1;
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
--> statement-breakpoint
-- Settle: the document was delivered. The receipt becomes settled (or is
-- written settled, when its reservation expired and was swept) and the
-- month, day and key are charged, once: false when it was settled already.
CREATE FUNCTION "ink_settle_generation"(
  p_account uuid, p_month text, p_hash text, p_day date, p_key uuid
) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(
    hashtextextended(p_account::text || '/' || p_month, 0));
  INSERT INTO generation_receipts AS r
    (account_id, month, request_hash, settled, expires_at)
    VALUES (p_account, p_month, p_hash, true, NULL)
    ON CONFLICT (account_id, month, request_hash) DO UPDATE
      SET settled = true, expires_at = NULL
      WHERE NOT r.settled;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  INSERT INTO usage_monthly AS u (account_id, month, count)
    VALUES (p_account, p_month, 1)
    ON CONFLICT (account_id, month) DO UPDATE SET count = u.count + 1;
  INSERT INTO usage_daily AS d (account_id, day, count)
    VALUES (p_account, p_day, 1)
    ON CONFLICT (account_id, day) DO UPDATE SET count = d.count + 1;
  IF p_key IS NOT NULL THEN
    INSERT INTO usage_by_key AS k (key_id, month, count)
      VALUES (p_key, p_month, 1)
      ON CONFLICT (key_id, month) DO UPDATE SET count = k.count + 1;
  END IF;
  RETURN true;
END
$$;
