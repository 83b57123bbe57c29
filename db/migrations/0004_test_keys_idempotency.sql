CREATE TABLE "idempotency_keys" (
	"account_id" uuid NOT NULL,
	"key_hash" text NOT NULL,
	"request_hash" text NOT NULL,
	"state" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "idempotency_keys_account_id_key_hash_pk" PRIMARY KEY("account_id","key_hash"),
	CONSTRAINT "idempotency_keys_state_valid" CHECK ("idempotency_keys"."state" in ('running', 'done'))
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "mode" text DEFAULT 'live' NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_monthly" ADD COLUMN "test_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "idempotency_keys_created_at_idx" ON "idempotency_keys" USING btree ("created_at");--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_mode_valid" CHECK ("api_keys"."mode" in ('live', 'test'));--> statement-breakpoint
ALTER TABLE "usage_monthly" ADD CONSTRAINT "usage_monthly_test_count_non_negative" CHECK ("usage_monthly"."test_count" >= 0);