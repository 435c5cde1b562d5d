/**
 * The owner gate's reads across the processes of one run. Before a flag's (a segment's) DELETE,
 * and before a definition's delete is held back for it, the provider reads which environments of
 * the workspace require approvals (`./change-request.ts` `gatedEnvironments`: the environment list
 * and a dry-run PATCH of each). A destroy's plan reads them (OpenTofu plans each delete with the
 * provider, `provider/terraform/server.ts`), and hands them to the apply that follows a second or
 * two later ({@link carryOwnerGates}), so the apply's first requests are its deletes: under a rate
 * limit, the reads no longer take their place in the deletes' first second.
 *
 * The file holds, by a hash of the client's base URL and key (`./config.ts` `clientIdentity`: no
 * key is written) and the workspace id, each environment's id, name and whether it requires
 * approvals, with the time they were read; an entry is taken for {@link GATE_HAND_OVER_MS} after
 * that, far less than one process trusts its own reads, and dropped then (a process that took it
 * keeps it as its own). `FLAGSTACK_GATE_LEDGER`
 * names another file, or `off`.
 * @module
 */
import { join } from "node:path";
import { journalDir } from "./created-journal";
import { carryOver, type HandOver } from "./hand-over";

/**
 * What the owner gate read of one workspace (`./change-request.ts` `gatedEnvironments`): its
 * environments and whether each requires approvals, and when that was read.
 */
export interface GateFacts {
  /** When the oldest of the reads was made (ms since the epoch). */
  at: number;
  environments: { id: string; name: string; approvals: boolean }[];
}

/**
 * How long the owner gate's reads are handed on: a destroy's plan reads them, and its apply, a
 * second or two later, starts its deletes without reading them again. Far shorter than one
 * process trusts them itself (`./config.ts` `memo`, minutes): an apply of a saved plan after a
 * review reads them afresh.
 */
export const GATE_HAND_OVER_MS = 30_000;

/** The gate's reads handed over by the run's previous process, by client identity and workspace. */
const handed = new Map<string, GateFacts>();
/** The gate's reads this process made, to hand on. */
const made = new Map<string, GateFacts>();

/** The keys whose handed-over facts this process has taken. */
const taken = new Set<string>();

/**
 * The facts handed over under `key` (a client's identity and a workspace id): taken while younger
 * than {@link GATE_HAND_OVER_MS}, then kept for `keptMs` from when they were read (as long as the
 * process keeps its own reads: `./config.ts` `MEMO_TTL_MS`, which the caller passes, so that a
 * start does not load the settings' module), so that an apply longer than the hand-over's time
 * does not read them again halfway through its deletes.
 */
export function handedOwnerGate(key: string, keptMs: number, now = Date.now()): GateFacts | undefined {
  const facts = handed.get(key);
  if (facts === undefined || now - facts.at >= (taken.has(key) ? keptMs : GATE_HAND_OVER_MS))
    return undefined;
  taken.add(key);
  return facts;
}

/** Notes what this process's gate read under `key`, to hand on when it exits. */
export function noteOwnerGate(key: string, facts: GateFacts): void {
  made.set(key, facts);
}

/** Takes the gate's reads the run's previous process handed over. */
export function seedOwnerGates(entries: Record<string, GateFacts>): void {
  for (const [key, facts] of Object.entries(entries)) handed.set(key, facts);
}

/** The gate's reads this process made, to hand on. */
export function ownerGatesMade(): Record<string, GateFacts> {
  return Object.fromEntries(made);
}

/** Forgets the gate's reads, handed over and made (for tests). */
export function forgetOwnerGates(): void {
  handed.clear();
  taken.clear();
  made.clear();
}

/** The file: `FLAGSTACK_GATE_LEDGER`, else `owner-gates.json` in the notes' directory; `undefined` when off. */
export function gateLedgerPath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const set = env.FLAGSTACK_GATE_LEDGER;
  if (set === "off") return undefined;
  if (set) return set;
  return join(journalDir(), "owner-gates.json");
}

/** An entry as read from the file, or `undefined` when any field is malformed. */
function accept(raw: unknown): GateFacts | undefined {
  const f = raw as Partial<GateFacts> | null;
  if (typeof f?.at !== "number" || !Number.isFinite(f.at) || !Array.isArray(f.environments)) return undefined;
  const environments: GateFacts["environments"] = [];
  for (const e of f.environments as unknown[]) {
    const env = e as Partial<GateFacts["environments"][number]> | null;
    if (typeof env?.id !== "string" || typeof env.name !== "string" || typeof env.approvals !== "boolean")
      return undefined;
    environments.push({ id: env.id, name: env.name, approvals: env.approvals });
  }
  return { at: f.at, environments };
}

/** The owner gate's hand-over at `path` (`./hand-over.ts`). */
export const gateLedger = (path: string | undefined): HandOver<GateFacts> => ({
  path,
  accept,
  lastOf: (f) => f.at,
  ttlMs: GATE_HAND_OVER_MS,
});

/**
 * Goes on from the previous process of the run: takes the gate's reads it handed over now, and
 * hands on this process's when it exits (only when it read any).
 */
export function carryOwnerGates(path = gateLedgerPath()): void {
  carryOver(gateLedger(path), seedOwnerGates, ownerGatesMade);
}
