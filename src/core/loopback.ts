// This machine's loopback interface: the host names a URL gives it, and the addresses a socket
// reports for it (an IPv4 peer of a dual-stack socket as ::ffff:127.x.y.z).

/** Loopback host names as URLs spell them (`new URL(…).hostname`). */
export const LOOPBACK_HOSTNAMES: ReadonlySet<string> = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** Whether an address (a socket peer's, or one to listen on) is a loopback one. */
export const isLoopbackAddress = (address: string): boolean => address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127.");
