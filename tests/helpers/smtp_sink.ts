/**
 * A real SMTP server on loopback (npm `smtp-server`) that keeps what it
 * receives, for tests that read the service's mail and follow its links.
 */
import { SMTPServer } from "smtp-server";

/** One delivered message. */
export interface ReceivedMail {
  /** Envelope recipients. */
  to: string[];
  /** Envelope sender. */
  from: string;
  /** The user that authenticated, if any. */
  user?: string;
  /** Header fields by lower-cased name (first occurrence). */
  headers: Record<string, string>;
  /** The text body, transfer encoding undone. */
  text: string;
}

/** A running sink. */
export interface SmtpSink {
  /** `smtp://user:pass@127.0.0.1:<port>` */
  url: string;
  messages: ReceivedMail[];
  /** Waits for the next message to `to` not yet taken (at most `timeout_ms`). */
  next_for(to: string, timeout_ms?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/** Decodes quoted-printable text (soft breaks, `=XX` bytes as UTF-8). */
export function decode_quoted_printable(text: string): string {
  const joined = text.replace(/=\r?\n/g, "");
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i++) {
    const hex = joined.slice(i + 1, i + 3);
    if (joined[i] === "=" && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...new TextEncoder().encode(joined[i]));
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

function parse_message(raw: string): Omit<ReceivedMail, "to" | "from"> {
  const split = raw.indexOf("\r\n\r\n");
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, " ");
  const body = raw.slice(split + 4);
  const headers: Record<string, string> = {};
  for (const line of head.split("\r\n")) {
    const colon = line.indexOf(":");
    const name = line.slice(0, colon).trim().toLowerCase();
    headers[name] ??= line.slice(colon + 1).trim();
  }
  const encoding = (headers["content-transfer-encoding"] ?? "").toLowerCase();
  const text = encoding === "quoted-printable"
    ? decode_quoted_printable(body)
    : encoding === "base64"
    ? new TextDecoder().decode(
      Uint8Array.from(atob(body.replace(/\s+/g, "")), (c) => c.charCodeAt(0)),
    )
    : body;
  return { headers, text: text.replace(/\r\n/g, "\n") };
}

/** Starts a sink on 127.0.0.1 (a free port) requiring `user`/`pass`. */
export async function start_smtp_sink(
  credentials = { user: "mailer", pass: "s3cret-pass" },
): Promise<SmtpSink> {
  const messages: ReceivedMail[] = [];
  const taken = new Set<ReceivedMail>();
  const waiters = new Set<() => void>();
  const server = new SMTPServer({
    // Plain SMTP on loopback: no certificate to trust in tests.
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    authMethods: ["PLAIN", "LOGIN"],
    logger: false,
    onAuth(auth, _session, callback) {
      if (
        auth.username === credentials.user &&
        auth.password === credentials.pass
      ) {
        callback(null, { user: auth.username });
      } else callback(new Error("Invalid username or password"));
    },
    onData(stream, session, callback) {
      const chunks: Uint8Array[] = [];
      stream.on("data", (chunk: Uint8Array) => chunks.push(chunk));
      stream.on("end", () => {
        const raw = new TextDecoder().decode(
          new Uint8Array(chunks.flatMap((chunk) => [...chunk])),
        );
        messages.push({
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          from: session.envelope.mailFrom
            ? session.envelope.mailFrom.address
            : "",
          user: session.user as string | undefined,
          ...parse_message(raw),
        });
        for (const wake of [...waiters]) wake();
        callback();
      });
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      // deno-lint-ignore no-explicit-any
      resolve(((server as any).server.address() as { port: number }).port);
    });
  });
  return {
    url: `smtp://${credentials.user}:${credentials.pass}@127.0.0.1:${port}`,
    messages,
    async next_for(to, timeout_ms = 15_000) {
      const deadline = Date.now() + timeout_ms;
      while (true) {
        const found = messages.find((message) =>
          !taken.has(message) && message.to.includes(to)
        );
        if (found) {
          taken.add(found);
          return found;
        }
        const left = deadline - Date.now();
        if (left <= 0) {
          throw new Error(`no mail to ${to} within ${timeout_ms} ms`);
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            waiters.delete(wake);
            resolve();
          }, left);
          const wake = () => {
            clearTimeout(timer);
            waiters.delete(wake);
            resolve();
          };
          waiters.add(wake);
        });
      }
    },
    close() {
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The first link in a mail's text to `path` (e.g. `/reset-password`). */
export function link_in(mail: ReceivedMail, path: string): URL {
  const match = new RegExp(`https?://\\S+${path}\\?token=\\S+`).exec(
    mail.text,
  );
  if (!match) throw new Error(`no ${path} link in:\n${mail.text}`);
  return new URL(match[0]);
}
