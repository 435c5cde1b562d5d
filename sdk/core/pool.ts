/**
 * One keep-alive undici `Pool` per origin, shared by every client in the process, so that many
 * clients (one per Pulumi resource, say) reuse the same warm connections instead of each opening
 * their own. Idle sockets are unref'd by undici, so a pool never keeps the process alive.
 *
 * undici is loaded on the first pool, not with this module: a process that never sends a request
 * (a no-op `pulumi preview` through the provider plugin) does not pay its ~100 modules.
 * @module
 */
import type { Pool } from "undici";

const pools = new Map<string, Pool>();

/** Connections per origin. The rate limiters cap concurrency well below this. */
export const POOL_CONNECTIONS = 64;

/** The shared pool of `origin` (`http://host:port`), created on first use. */
export function sharedPool(origin: string): Pool {
  let pool = pools.get(origin);
  if (pool === undefined || pool.closed || pool.destroyed) {
    const undici = require("undici") as typeof import("undici");
    pool = new undici.Pool(origin, {
      connections: POOL_CONNECTIONS,
      pipelining: 1,
      // undici's keep-alive defaults follow the server's `Keep-Alive: timeout=` hint, minus a
      // safety margin, which avoids reusing a socket the server is about to close.
    });
    pools.set(origin, pool);
  }
  return pool;
}

/** Closes the shared pool of one origin (pending requests finish first). */
export async function closeSharedPool(origin: string): Promise<void> {
  const pool = pools.get(origin);
  if (pool === undefined) return;
  pools.delete(origin);
  await pool.close();
}

/** Closes every shared pool; for CLIs and test teardown. */
export async function closeSharedPools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.close()));
}
