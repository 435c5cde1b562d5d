/**
 * An admin client against its own emulator on 127.0.0.1:0, with a recording dispatcher (the exact
 * bodies sent), the `Default` workspace and its Production environment, and what the emulator saw.
 * Shared by the SDK and lookup tests of the admin API's parts.
 */
import { type Emulator, startEmulator } from "../../../emulator";
import { AdminClient } from "../../../sdk/admin/client";
import type { Workspace } from "../../../sdk/admin/schemas";
import { type Recorder, recordingDispatcher } from "./recording-dispatcher";

/** A running {@link startAdminBed}. */
export interface AdminBed {
  emu: Emulator;
  rec: Recorder;
  admin: AdminClient;
  ws: Workspace;
  /** The id of the `Production` environment of `Default`. */
  prodId: string;
  /** What the emulator saw since the last {@link reset}: `METHOD path?query status`. */
  seen(): string[];
  /** The JSON bodies the client sent since the last {@link reset}. */
  bodies(): unknown[];
  reset(): void;
  stop(): Promise<void>;
}

/** Every item of an async iterable. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of items) out.push(x);
  return out;
}

/** Starts an {@link AdminBed}. */
export async function startAdminBed(): Promise<AdminBed> {
  const emu = await startEmulator({ port: 0 });
  const rec = recordingDispatcher();
  const admin = new AdminClient({
    baseUrl: emu.url,
    apiKey: emu.adminKey,
    requestsPerSecond: Number.POSITIVE_INFINITY,
    dispatcher: rec.dispatcher,
  });
  const ws = (await admin.workspaces.getByName("Default")) as Workspace;
  const prod = await admin.environments.find(ws.id, "Production");
  if (prod === undefined) throw new Error("the emulator has no Production environment");
  return {
    emu,
    rec,
    admin,
    ws,
    prodId: prod.id,
    seen: () => emu.requests().map((r) => `${r.method} ${r.path}${r.query ? `?${r.query}` : ""} ${r.status}`),
    bodies: () => rec.sent.map((s) => (s.body === undefined ? undefined : JSON.parse(String(s.body)))),
    reset() {
      emu.resetRequests();
      rec.sent.length = 0;
    },
    async stop() {
      await emu.stop();
      await rec.close();
    },
  };
}
