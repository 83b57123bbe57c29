/**
 * Outgoing mail: SMTP through nodemailer when `SMTP_URL` is set (STARTTLS
 * whenever the server offers it), otherwise each message is written to the
 * log so a lone `deno task start` still shows reset and verification links:
 * one JSON line with the whole message, and for a message with a link, a
 * plain line starting with {@link LOGGED_LINK_MARK} that is easy to spot.
 *
 * @module
 */
import type { Transporter } from "nodemailer";
import { LOGGED_LINK_MARK } from "../contract/auth.ts";

/** One plain-text message. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** Where replies go, when not to the sender (e.g. the customer who asked). */
  reply_to?: string;
  /** The link the message is about (verification, reset), also in `text`. */
  link?: string;
}

/** Sends mail; `send` rejects when the message could not be handed over. */
export interface Mailer {
  /** How mail leaves: `smtp` or `log`. */
  readonly kind: "smtp" | "log";
  /** Sends one message. */
  send(message: MailMessage): Promise<void>;
  /** Closes pooled connections. */
  close(): void;
}

/** Options of {@link create_mailer}. */
export interface MailerOptions {
  /** `smtp://user:pass@host:587` or `smtps://…:465`; unset: log only. */
  smtp_url?: string;
  /** The `From` address. */
  mail_from: string;
  /** Where a log mailer writes (default: `console.log`). */
  write_log?: (line: string) => void;
}

/** Creates the mailer the configuration asks for. */
export function create_mailer(options: MailerOptions): Mailer {
  if (!options.smtp_url) {
    const write = options.write_log ?? ((line: string) => console.log(line));
    return {
      kind: "log",
      send({ link, ...message }) {
        write(JSON.stringify({
          time: new Date().toISOString(),
          mail: "not sent (SMTP_URL unset)",
          from: options.mail_from,
          ...message,
        }));
        if (link) {
          write(
            `${LOGGED_LINK_MARK} (SMTP_URL is not set): "${message.subject}" for ${message.to}: open ${link}`,
          );
        }
        return Promise.resolve();
      },
      close() {},
    };
  }
  const smtp_url = options.smtp_url;
  // nodemailer is loaded with the first message, not at start: a service
  // that mails rarely (or never) does not carry ~4 MB of it on its heap.
  let transport: Promise<Transporter> | undefined;
  let opened: Transporter | undefined;
  function open_transport(): Promise<Transporter> {
    transport ??= import("nodemailer").then(({ default: nodemailer }) => {
      // A URL transport: smtp:// upgrades with STARTTLS when offered
      // (nodemailer's default), smtps:// is TLS from the start. Timeouts
      // bound a stuck server.
      opened = nodemailer.createTransport({
        url: smtp_url,
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 30_000,
      });
      return opened;
    });
    return transport;
  }
  return {
    kind: "smtp",
    async send({ reply_to, link: _link, ...message }) {
      await (await open_transport()).sendMail({
        from: options.mail_from,
        ...message,
        ...(reply_to ? { replyTo: reply_to } : {}),
      });
    },
    close() {
      opened?.close();
    },
  };
}
