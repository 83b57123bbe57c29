/**
 * The client address per-address limits count: the TCP peer, or, when the
 * peer is a trusted proxy, the right-most `X-Forwarded-For` hop that is not
 * one (hops left of it are whatever the client chose to send).
 *
 * @module
 */

/** An address range: IPv4 or IPv6 (IPv4-mapped IPv6 counts as IPv4). */
export interface AddressRange {
  version: 4 | 6;
  base: bigint;
  prefix: number;
}

interface ParsedAddress {
  version: 4 | 6;
  value: bigint;
}

function parse_ipv4(text: string): bigint | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return undefined;
    value = (value << 8n) | BigInt(Number(part));
  }
  return value;
}

function parse_ipv6(text: string): bigint | undefined {
  let head = text;
  let tail_v4: bigint | undefined;
  const last_colon = text.lastIndexOf(":");
  if (text.slice(last_colon + 1).includes(".")) {
    tail_v4 = parse_ipv4(text.slice(last_colon + 1));
    if (tail_v4 === undefined) return undefined;
    head = `${text.slice(0, last_colon + 1)}0:0`;
  }
  const halves = head.split("::");
  if (halves.length > 2) return undefined;
  const groups = (part: string) => part === "" ? [] : part.split(":");
  const left = groups(halves[0]);
  const right = halves.length === 2 ? groups(halves[1]) : [];
  const missing = 8 - left.length - right.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const all = [...left, ...Array(missing).fill("0"), ...right];
  let value = 0n;
  for (const group of all) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return undefined;
    value = (value << 16n) | BigInt(parseInt(group, 16));
  }
  if (tail_v4 !== undefined) value = (value & ~0xffffffffn) | tail_v4;
  return value;
}

const MAPPED_V4 = 0xffffn << 32n;

function parse_address(text: string): ParsedAddress | undefined {
  const v4 = parse_ipv4(text);
  if (v4 !== undefined) return { version: 4, value: v4 };
  const v6 = parse_ipv6(text.replace(/%.*$/, ""));
  if (v6 === undefined) return undefined;
  if (v6 >> 32n === 0xffffn) return { version: 4, value: v6 - MAPPED_V4 };
  return { version: 6, value: v6 };
}

/** A forwarded hop without brackets or port: `[::1]:80` → `::1`, `1.2.3.4:5` → `1.2.3.4`. */
function strip_port(hop: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hop);
  if (bracketed) return bracketed[1];
  const v4_port = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(hop);
  return v4_port ? v4_port[1] : hop;
}

/**
 * Parses `TRUSTED_PROXIES`: comma-separated addresses or CIDRs, IPv4 or
 * IPv6. Throws an `Error` naming the bad entry.
 */
export function parse_trusted_proxies(text: string): AddressRange[] {
  const ranges: AddressRange[] = [];
  for (const entry of text.split(",").map((item) => item.trim())) {
    if (entry === "") continue;
    const [address_text, prefix_text, extra] = entry.split("/");
    const address = extra === undefined
      ? parse_address(address_text)
      : undefined;
    const bits = address?.version === 4 ? 32 : 128;
    const prefix = prefix_text === undefined ? bits : Number(prefix_text);
    if (
      !address ||
      (prefix_text !== undefined && !/^\d{1,3}$/.test(prefix_text)) ||
      prefix > bits
    ) {
      throw new Error(
        `"${entry}" is not an IPv4 or IPv6 address or CIDR (e.g. 10.0.0.0/8, fd00::/8)`,
      );
    }
    const shift = BigInt(bits - prefix);
    ranges.push({
      version: address.version,
      base: (address.value >> shift) << shift,
      prefix,
    });
  }
  return ranges;
}

function is_trusted(address: ParsedAddress, ranges: AddressRange[]): boolean {
  return ranges.some((range) => {
    if (range.version !== address.version) return false;
    const shift = BigInt((range.version === 4 ? 32 : 128) - range.prefix);
    return (address.value >> shift) << shift === range.base;
  });
}

/**
 * The client address of a request from `peer`: the peer itself unless it is
 * a trusted proxy; then the right-most `X-Forwarded-For` hop that is not a
 * trusted proxy (the left-most when all are). An unparsable hop is taken as
 * the client's, as sent (at most 100 characters).
 */
export function resolve_client_address(
  peer: string,
  forwarded_for: string | null,
  options: { trusted_proxies: AddressRange[] },
): string {
  const ranges = options.trusted_proxies;
  const parsed_peer = parse_address(peer);
  if (ranges.length === 0 || !parsed_peer || !is_trusted(parsed_peer, ranges)) {
    return peer;
  }
  const hops = (forwarded_for ?? "").split(",").map((hop) => hop.trim())
    .filter(Boolean);
  let client = peer;
  for (let index = hops.length - 1; index >= 0; index--) {
    const hop = strip_port(hops[index]);
    const address = parse_address(hop);
    if (!address) return hop.slice(0, 100);
    client = hop;
    if (!is_trusted(address, ranges)) return hop;
  }
  return client;
}

/**
 * The group a client address counts in for per-address shares: an IPv4
 * address itself, an IPv6 address by its /64 (one subscriber's usual
 * allocation, which they can fill with addresses at will). Text that is no
 * address is its own group.
 */
export function address_group(address: string): string {
  if (/^\d{1,3}(?:\.\d{1,3}){3}$/.test(address)) return address;
  const parsed = parse_address(address);
  if (!parsed) return address;
  if (parsed.version === 4) {
    const value = Number(parsed.value);
    return [24, 16, 8, 0].map((shift) => (value >>> shift) & 255).join(".");
  }
  const prefix = parsed.value >> 64n;
  const groups = [48n, 32n, 16n, 0n].map((shift) =>
    ((prefix >> shift) & 0xffffn).toString(16)
  );
  return `${groups.join(":")}::/64`;
}
