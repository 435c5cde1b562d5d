/**
 * Gives each request a transaction id, as the admin API does in its error bodies
 * (`"transactionId":"22f0rxo8uno"`, ref admin §2), and echoes it in a response header.
 * @module
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../context";

let counter = 0;

/** An 11-character lowercase id shaped like the real service's (`22f0rxo8uno`). */
export function newTransactionId(): string {
  counter = (counter + 1) % 46656;
  const rand = Math.floor(Math.random() * 2176782336)
    .toString(36)
    .padStart(6, "0");
  const time = (Date.now() % 60466176).toString(36).padStart(5, "0").slice(-2);
  return `${rand}${time}${counter.toString(36).padStart(3, "0")}`;
}

/**
 * Sets `c.var.transactionId` and the `headerName` response header.
 * @param opts.headerName - response header carrying the id (default `X-Transaction-Id`)
 * @param opts.generator - id factory
 */
export function transactionId({
  headerName = "X-Transaction-Id",
  generator = newTransactionId,
}: {
  headerName?: string;
  generator?: () => string;
} = {}): MiddlewareHandler<AppEnv> {
  return async function transactionIdMiddleware(c, next) {
    const id = generator();
    c.set("transactionId", id);
    await next();
    c.res.headers.set(headerName, id);
  };
}
