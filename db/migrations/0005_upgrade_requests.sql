CREATE TABLE "upgrade_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL,
	"current_plan" text NOT NULL,
	"requested_plan" text NOT NULL,
	"message" text,
	"status" text DEFAULT 'open' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"closed_at" timestamp with time zone,
	"closed_by" text,
	"resulting_plan" text,
	CONSTRAINT "upgrade_requests_status_valid" CHECK ("upgrade_requests"."status" in ('open', 'closed')),
	CONSTRAINT "upgrade_requests_requested_plan_valid" CHECK ("upgrade_requests"."requested_plan" in ('starter', 'pro', 'team'))
);
--> statement-breakpoint
ALTER TABLE "upgrade_requests" ADD CONSTRAINT "upgrade_requests_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "upgrade_requests_one_open_per_account" ON "upgrade_requests" USING btree ("account_id") WHERE "upgrade_requests"."status" = 'open';--> statement-breakpoint
CREATE INDEX "upgrade_requests_account_id_created_at_idx" ON "upgrade_requests" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "upgrade_requests_created_at_idx" ON "upgrade_requests" USING btree ("created_at");