/**
 * Injected faults: a fraction of requests answered with 429, 500 or 503, connections dropped
 * without a response (before the request is handled, or after it took effect), and added
 * latency. The choice comes from a seeded PRNG, so a run with the same seed and the same request
 * order replays exactly; the seed in use is reported by {@link FaultController.get}.
 *
 * Faults never touch the control routes (`/_emulator/...`).
 * @module
 */
import type { Context, MiddlewareHandler } from "hono";
import { z } from "zod";
import { APIS, type AppEnv, type FaultKind } from "../context";
import { EmulatorError } from "../errors";
import { renderError } from "../http";

const fraction = (name: string) =>
  z
    .number({ error: `${name} must be a number` })
    .min(0, `${name} must be between 0 and 1`)
    .max(1, `${name} must be between 0 and 1`)
    .default(0);

/** Fault settings (`emu.setFaults()`, `PUT /_emulator/faults`, `--fault-*` options). */
export const FaultConfig = z
  .object({
    /** Fraction of requests answered 429 (with the rate-limit headers, ref admin §4). */
    rate429: fraction("rate429"),
    rate500: fraction("rate500"),
    rate503: fraction("rate503"),
    /** Fraction of connections destroyed before the request is handled (nothing changes). */
    dropRate: fraction("dropRate"),
    /**
     * Fraction of connections destroyed after the request took effect: the client cannot tell
     * whether it did, as when a response is lost in the network.
     */
    dropAfterRate: fraction("dropAfterRate"),
    /** Added to every affected request, in milliseconds. */
    latencyMs: z
      .number()
      .min(0, "latencyMs must not be negative")
      .max(60_000, "latencyMs must be at most 60000")
      .default(0),
    /** PRNG seed; a random one is chosen (and reported) when absent. */
    seed: z.number().int("seed must be an integer").optional(),
    /** APIs affected (default: every API, never the control routes). */
    apis: z.array(z.enum(APIS)).optional(),
  })
  .strict()
  .refine((f) => f.rate429 + f.rate500 + f.rate503 + f.dropRate <= 1, {
    message: "rate429 + rate500 + rate503 + dropRate must not exceed 1",
  });
/** Fault settings (input). */
export type FaultConfigInput = z.input<typeof FaultConfig>;
/** Fault settings with defaults applied and the seed in use. */
export type FaultSettings = z.output<typeof FaultConfig> & { seed: number };

/** mulberry32: tiny, fast, and good enough to pick faults reproducibly. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Holds the fault settings and the PRNG. */
export class FaultController {
  private settings: FaultSettings;
  private rng: () => number;

  constructor(input: FaultConfigInput = {}) {
    this.settings = FaultController.parse(input);
    this.rng = mulberry32(this.settings.seed);
  }

  private static parse(input: FaultConfigInput): FaultSettings {
    const parsed = FaultConfig.parse(input);
    return { ...parsed, seed: parsed.seed ?? Math.floor(Math.random() * 2 ** 31) };
  }

  /** Replaces the settings and restarts the PRNG from the seed. Throws a ZodError on bad input. */
  set(input: FaultConfigInput): FaultSettings {
    this.settings = FaultController.parse(input);
    this.rng = mulberry32(this.settings.seed);
    return this.get();
  }

  get(): FaultSettings {
    return { ...this.settings };
  }

  /** True when any fault or latency is configured. */
  get active(): boolean {
    const s = this.settings;
    return s.rate429 + s.rate500 + s.rate503 + s.dropRate + s.dropAfterRate > 0 || s.latencyMs > 0;
  }

  /** Picks the fault for one request (one PRNG draw, plus one when dropAfterRate is set). */
  decide(api: (typeof APIS)[number]): {
    before: FaultKind | undefined;
    dropAfter: boolean;
    latencyMs: number;
  } {
    const s = this.settings;
    if (api === "emulator" || (s.apis && !s.apis.includes(api)))
      return { before: undefined, dropAfter: false, latencyMs: 0 };
    let before: FaultKind | undefined;
    const r = this.rng();
    let edge = 0;
    for (const [kind, rate] of [
      ["drop", s.dropRate],
      ["429", s.rate429],
      ["500", s.rate500],
      ["503", s.rate503],
    ] as const) {
      edge += rate;
      if (r < edge) {
        before = kind;
        break;
      }
    }
    const dropAfter = !before && s.dropAfterRate > 0 && this.rng() < s.dropAfterRate;
    return { before, dropAfter, latencyMs: s.latencyMs };
  }
}

/** The four `X-RateLimit-*` headers plus `Retry-After` (ref admin §4 "Rate limiting"). */
export function rateLimitHeaders(remaining: number, resetSeconds: number): Record<string, string> {
  return {
    "X-RateLimit-Remaining-Org": String(remaining),
    "X-RateLimit-Remaining-IP": String(remaining),
    "X-RateLimit-Reset-Seconds-Org": String(resetSeconds),
    "X-RateLimit-Reset-Seconds-IP": String(resetSeconds),
  };
}

/**
 * A 429 in the shape of the API asked: admin, events and SDK get the admin error body with the
 * rate-limit headers and `Retry-After`; the platform gets a bare edge-style 429 without them
 * (ref platform §9: "Retry-After ... is not currently supported").
 */
export function tooManyRequests(c: Context<AppEnv>, resetSeconds: number, message: string): Response {
  if (c.get("api") === "platform") {
    return new Response("Too Many Requests", { status: 429, headers: { "content-type": "text/plain" } });
  }
  const headers = { ...rateLimitHeaders(0, resetSeconds), "Retry-After": String(resetSeconds) };
  return renderError(c, new EmulatorError(429, message, { headers }));
}

/** An injected 500 or 503: the platform's is an ErrorDTO UNKNOWN_ERROR (ref platform §2). */
const INJECTED = {
  "500": () => new EmulatorError(500, "Internal server error (injected fault)"),
  "503": () => new EmulatorError(503, "Service unavailable (injected fault)"),
} as const;

/** Destroys the client connection without writing a response. */
function dropConnection(c: Context<AppEnv>): void {
  const socket = c.env?.incoming?.socket;
  if (socket && !socket.destroyed) socket.destroy();
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Applies the configured faults to every request outside `/_emulator`. */
export function faults(controller: FaultController): MiddlewareHandler<AppEnv> {
  return async function faultsMiddleware(c, next) {
    if (!controller.active) return next();
    const { before, dropAfter, latencyMs } = controller.decide(c.get("api"));
    if (latencyMs > 0) await sleep(latencyMs);
    switch (before) {
      case "drop":
        c.set("fault", "drop");
        dropConnection(c);
        // Nothing reaches the client; this response only ends the hono pipeline.
        return new Response(null, { status: 503 });
      case "429":
        c.set("fault", "429");
        return tooManyRequests(c, 1, "Too many requests (injected fault)");
      case "500":
      case "503":
        c.set("fault", before);
        return renderError(c, INJECTED[before]());
      default:
        break;
    }
    await next();
    if (dropAfter) {
      c.set("fault", "drop-after");
      dropConnection(c);
    }
  };
}
