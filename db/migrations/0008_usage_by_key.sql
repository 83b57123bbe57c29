CREATE TABLE "usage_by_key" (
	"key_id" uuid NOT NULL,
	"month" text NOT NULL,
	"count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_by_key_key_id_month_pk" PRIMARY KEY("key_id","month"),
	CONSTRAINT "usage_by_key_month_format" CHECK ("usage_by_key"."month" ~ '^[0-9]{4}-[0-9]{2}$'),
	CONSTRAINT "usage_by_key_count_non_negative" CHECK ("usage_by_key"."count" >= 0)
);
--> statement-breakpoint
ALTER TABLE "usage_by_key" ADD CONSTRAINT "usage_by_key_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;