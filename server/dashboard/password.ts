/**
 * Dashboard password hashing with scrypt (memory-hard), through node:crypto
 * so the work runs on the thread pool instead of blocking the event loop.
 *
 * Stored form: `scrypt$<log2 N>$<r>$<p>$<salt base64>$<hash base64>`. The
 * parameters travel with each hash, so they can be raised later without
 * invalidating existing passwords.
 *
 * @module
 */
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/** Cost parameters of a hash. */
export interface ScryptParams {
  /** log2 of the CPU/memory cost N. */
  log_n: number;
  /** Block size. */
  r: number;
  /** Parallelism. */
  p: number;
}

/**
 * The production cost: N = 2^15, r = 8 → 32 MiB and ~0.1 s per hash here.
 * Every new hash uses it unless a caller injects other parameters (tests
 * start servers with a low cost through `StartOptions.scrypt_params`).
 */
export const DEFAULT_SCRYPT_PARAMS: ScryptParams = { log_n: 15, r: 8, p: 1 };

const SALT_BYTES = 16;
const KEY_BYTES = 32;
// Bounds for parameters read back from storage, so a corrupted row cannot
// make one sign-in allocate gigabytes or spin for minutes.
const MAX_LOG_N = 20;
const MAX_R = 32;
const MAX_P = 16;

function derive(
  password: string,
  salt: Uint8Array,
  params: ScryptParams,
): Promise<Uint8Array> {
  const n = 2 ** params.log_n;
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFC"), salt, KEY_BYTES, {
      N: n,
      r: params.r,
      p: params.p,
      // node's default cap (32 MiB) is exactly 128·N·r for the defaults;
      // leave headroom for its bookkeeping.
      maxmem: 256 * n * params.r + 1024 * 1024,
    }, (error, key) => error ? reject(error) : resolve(new Uint8Array(key)));
  });
}

function to_base64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

function from_base64(text: string): Uint8Array | undefined {
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** Hashes a password with a fresh random salt. */
export async function hash_password(
  password: string,
  params: ScryptParams = DEFAULT_SCRYPT_PARAMS,
): Promise<string> {
  const salt = new Uint8Array(randomBytes(SALT_BYTES));
  const key = await derive(password, salt, params);
  return [
    "scrypt",
    params.log_n,
    params.r,
    params.p,
    to_base64(salt),
    to_base64(key),
  ].join("$");
}

function parse_hash(
  stored: string,
): { params: ScryptParams; salt: Uint8Array; key: Uint8Array } | undefined {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return undefined;
  const [log_n, r, p] = parts.slice(1, 4).map((part) =>
    /^\d{1,3}$/.test(part) ? Number(part) : NaN
  );
  if (
    !(log_n >= 1 && log_n <= MAX_LOG_N) || !(r >= 1 && r <= MAX_R) ||
    !(p >= 1 && p <= MAX_P)
  ) {
    return undefined;
  }
  const salt = from_base64(parts[4]);
  const key = from_base64(parts[5]);
  if (!salt || !key || salt.length === 0 || key.length !== KEY_BYTES) {
    return undefined;
  }
  return { params: { log_n, r, p }, salt, key };
}

/**
 * True when `password` matches `stored`. A malformed stored value never
 * matches. The comparison is constant-time.
 */
export async function verify_password(
  password: string,
  stored: string,
): Promise<boolean> {
  const parsed = parse_hash(stored);
  if (!parsed) return false;
  const key = await derive(password, parsed.salt, parsed.params);
  return timingSafeEqual(key, parsed.key);
}
