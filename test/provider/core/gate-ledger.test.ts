/**
 * The owner gate's reads handed from one provider process to the next
 * (provider/core/gate-ledger.ts, against the emulator through a recording proxy): what one
 * process's gate read (the environment list and a dry-run PATCH of each) is what it hands on, and
 * the next process, with a client of the same settings, answers the gate without a request;
 * reads of another key, of a client made elsewhere, or older than `GATE_HAND_OVER_MS` are read
 * afresh; and the file's entries (its path, malformed ones skipped).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { approvalsRequired, gatedEnvironments } from "../../../provider/core/change-request";
import {
  adminClient,
  clientIdentity,
  configureProvider,
  MEMO_TTL_MS,
  resetProvider,
} from "../../../provider/core/config";
import { journalDir } from "../../../provider/core/created-journal";
import {
  forgetOwnerGates,
  GATE_HAND_OVER_MS,
  type GateFacts,
  gateLedger,
  gateLedgerPath,
  handedOwnerGate,
  ownerGatesMade,
  seedOwnerGates,
} from "../../../provider/core/gate-ledger";
import { readHandOver, writeHandOver } from "../../../provider/core/hand-over";
import { AdminClient } from "../../../sdk/admin/client";
import type { Environment, Workspace } from "../../../sdk/admin/schemas";
import { createGatedEnvironment, startTestbed, type Testbed } from "../testbed";

const V2 = "/internal/api/v2";
let bed: Testbed;
let ws: Workspace;
let envs: Environment[];
let gatedId: string;
let dir: string;

/** A provider process's start: no client yet, configured with `key` against the proxy. */
function startProcess(key = bed.emu.adminKey): AdminClient {
  resetProvider();
  const config: Record<string, string> = {
    "flagstack:adminApiUrl": bed.proxy.url,
    "flagstack:adminApiKey": key,
    "flagstack:requestsPerSecond": "1000",
  };
  configureProvider({ get: (k) => config[k] });
  return adminClient();
}

const requests = () =>
  bed.proxy
    .requests()
    .map((r) => `${r.method} ${r.path}${r.query.dry_run ? ` dry_run=${r.query.dry_run}` : ""}`)
    .sort();

beforeAll(async () => {
  bed = await startTestbed();
  dir = mkdtempSync(join(tmpdir(), "flagstack-gate-ledger-"));
  ws = (await bed.admin.workspaces.getByName("Default")) as Workspace;
  gatedId = await createGatedEnvironment(bed.admin, ws.id);
  envs = await bed.admin.environments.list(ws.id);
});
afterAll(async () => {
  forgetOwnerGates();
  rmSync(dir, { recursive: true, force: true });
  await bed.stop();
});
beforeEach(() => {
  forgetOwnerGates();
});

describe("the owner gate's reads, handed on", () => {
  it("the next process, with the same settings, answers the gate from them without a request", async () => {
    const first = startProcess();
    bed.reset();
    expect(await gatedEnvironments(first, ws.id)).toEqual([{ id: gatedId, name: "Gated" }]);
    expect(requests()).toEqual(
      [
        `GET ${V2}/environments/ws/${ws.id}`,
        ...envs.map((e) => `PATCH ${V2}/environments/ws/${ws.id}/${e.id} dry_run=true`),
      ].sort(),
    );
    const made = ownerGatesMade();
    const key = `${clientIdentity(first)} ${ws.id}`;
    expect(Object.keys(made)).toEqual([key]);
    expect(made[key]?.environments).toEqual(
      envs.map((e) => ({ id: e.id, name: e.name, approvals: e.id === gatedId })),
    );
    // No key in the file: the identity is a hash of the settings.
    expect(key).toMatch(/^[0-9a-f]{32} /);
    const path = join(dir, "owner-gates.json");
    writeHandOver(gateLedger(path), made);

    // The next process.
    forgetOwnerGates();
    const next = startProcess();
    expect(next).not.toBe(first);
    seedOwnerGates(readHandOver(gateLedger(path)));
    bed.reset();
    expect(await approvalsRequired(next, ws.id, gatedId)).toBe(true);
    expect(await Promise.all(envs.map((e) => approvalsRequired(next, ws.id, e.id)))).toEqual(
      envs.map((e) => e.id === gatedId),
    );
    expect(await gatedEnvironments(next, ws.id)).toEqual([{ id: gatedId, name: "Gated" }]);
    expect(requests()).toEqual([]);
    // What was handed over is not handed on again as this process's own reads.
    expect(ownerGatesMade()).toEqual({});
  });

  it("another key's, a client made elsewhere, and reads older than the hand-over's time are read afresh", async () => {
    const key = await bed.admin.apiKeys.create({
      name: "other",
      apiKeyType: "admin",
      roles: ["API_ALL_GRANTED"],
      workspace: { type: "workspace", id: ws.id },
    });
    const first = startProcess();
    const identity = clientIdentity(first) as string;
    const facts = (at: number): GateFacts => ({
      at,
      environments: envs.map((e) => ({ id: e.id, name: e.name, approvals: false })),
    });
    const dryRun = `PATCH ${V2}/environments/ws/${ws.id}/${gatedId} dry_run=true`;

    // Another key: its identity differs, so the facts of the first one's are not its own.
    seedOwnerGates({ [`${identity} ${ws.id}`]: facts(Date.now()) });
    const other = startProcess(key.key);
    expect(clientIdentity(other)).not.toBe(identity);
    bed.reset();
    expect(await approvalsRequired(other, ws.id, gatedId)).toBe(true);
    expect(requests()).toEqual([dryRun]);

    // A client the settings did not make has no identity.
    const elsewhere = new AdminClient({
      baseUrl: bed.proxy.url,
      apiKey: bed.emu.adminKey,
      requestsPerSecond: 1000,
    });
    expect(clientIdentity(elsewhere)).toBeUndefined();
    bed.reset();
    expect(await approvalsRequired(elsewhere, ws.id, gatedId)).toBe(true);
    expect(requests()).toEqual([dryRun]);

    // Too old: read again.
    forgetOwnerGates();
    seedOwnerGates({ [`${identity} ${ws.id}`]: facts(Date.now() - GATE_HAND_OVER_MS - 1) });
    const late = startProcess();
    bed.reset();
    expect(await approvalsRequired(late, ws.id, gatedId)).toBe(true);
    expect(requests()).toEqual([dryRun]);

    // Young: taken as handed over (here, saying no approvals), with no request.
    forgetOwnerGates();
    seedOwnerGates({ [`${identity} ${ws.id}`]: facts(Date.now() - GATE_HAND_OVER_MS + 5000) });
    const young = startProcess();
    bed.reset();
    expect(await approvalsRequired(young, ws.id, gatedId)).toBe(false);
    expect(requests()).toEqual([]);
  });

  it("once taken, kept as the process keeps its own reads: an apply past the hand-over's time reads nothing again", () => {
    const key = "k ws";
    const at = Date.now();
    const facts: GateFacts = { at, environments: [{ id: "e1", name: "Production", approvals: true }] };
    seedOwnerGates({ [key]: facts, other: facts });
    expect(handedOwnerGate(key, MEMO_TTL_MS, at + 1000)).toBe(facts);
    expect(handedOwnerGate(key, MEMO_TTL_MS, at + GATE_HAND_OVER_MS + 1000)).toBe(facts);
    expect(handedOwnerGate(key, MEMO_TTL_MS, at + MEMO_TTL_MS - 1)).toBe(facts);
    expect(handedOwnerGate(key, MEMO_TTL_MS, at + MEMO_TTL_MS)).toBeUndefined();
    // Not taken within the hand-over's time: never taken.
    expect(handedOwnerGate("other", MEMO_TTL_MS, at + GATE_HAND_OVER_MS)).toBeUndefined();
  });
});

describe("the file", () => {
  it("is owner-gates.json beside the machine's other notes, another by FLAGSTACK_GATE_LEDGER, none when off", () => {
    expect(gateLedgerPath({})).toBe(join(journalDir(), "owner-gates.json"));
    expect(gateLedgerPath({ FLAGSTACK_GATE_LEDGER: "/x/g.json" })).toBe("/x/g.json");
    expect(gateLedgerPath({ FLAGSTACK_GATE_LEDGER: "off" })).toBeUndefined();
  });

  it("skips a malformed entry and keeps the others", () => {
    const path = join(dir, "malformed.json");
    const now = Date.now();
    const good: GateFacts = { at: now, environments: [{ id: "e1", name: "Production", approvals: true }] };
    writeFileSync(
      path,
      JSON.stringify({
        good,
        noAt: { environments: [] },
        badEnv: { at: now, environments: [{ id: "e1", name: "Production", approvals: "yes" }] },
        notList: { at: now, environments: {} },
      }),
    );
    expect(readHandOver(gateLedger(path), now)).toEqual({ good });
  });
});
