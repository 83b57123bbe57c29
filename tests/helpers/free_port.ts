/**
 * A loopback port free now, for a child process to listen on.
 *
 * @module
 */

/** A TCP port on 127.0.0.1 that nothing listens on at this moment. */
export function free_port(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}
