/**
 * Test helpers for the emulator: start one on port 0 and call it over real HTTP with `fetch`.
 */
import { expect } from "vitest";
import { type Emulator, type EmulatorOptions, startEmulator } from "../../emulator";

/** A response with its parsed body (JSON when it parses, else the text; null when empty). */
export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are asserted field by field
  body: any;
}

/** Options of one call. */
export interface CallOptions {
  /** JSON body (a string is sent as is). */
  body?: unknown;
  /** Bearer key; `null` sends none; defaults to the admin key. */
  key?: string | null;
  headers?: Record<string, string>;
}

/** A fetch wrapper bound to one emulator. */
export type Call = (method: string, path: string, opts?: CallOptions) => Promise<Reply>;

/** Binds {@link Call} to an emulator. */
export function caller(emu: Emulator): Call {
  return async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    const key = opts.key === undefined ? emu.adminKey : opts.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
      headers["content-type"] ??= "application/json";
    }
    const res = await fetch(`${emu.url}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = null;
    if (text !== "") {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    return { status: res.status, headers: res.headers, text, body: parsed };
  };
}

/** The admin error body with any transaction id. */
export const adminError = (code: number, message: string, details = "") => ({
  code,
  message,
  details,
  transactionId: expect.stringMatching(/^[0-9a-z]{11}$/),
});

/** Starts an emulator and its {@link Call}. */
export async function start(opts: EmulatorOptions = {}): Promise<{
  emu: Emulator;
  call: Call;
  ws: { id: string; name: string };
  env: Record<string, { id: string; name: string; production: boolean }>;
}> {
  const emu = await startEmulator({ port: 0, ...opts });
  const call = caller(emu);
  const list = await call("GET", "/internal/api/v2/workspaces?name=Default");
  const ws = list.body.objects[0];
  const envs = await call("GET", `/internal/api/v2/environments/ws/${ws.id}`);
  const env = Object.fromEntries(
    (envs.body as { id: string; name: string; production: boolean }[]).map((e) => [e.name, e]),
  );
  return { emu, call, ws, env };
}

/** A valid definition body: two treatments, 50/50 default rule. */
export const definitionBody = (over: Record<string, unknown> = {}) => ({
  treatments: [
    { name: "on", description: "enabled" },
    { name: "off", description: "disabled" },
  ],
  defaultTreatment: "off",
  defaultRule: [
    { treatment: "on", size: 50 },
    { treatment: "off", size: 50 },
  ],
  ...over,
});
