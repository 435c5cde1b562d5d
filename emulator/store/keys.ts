/**
 * The API keys of both APIs, by key string (what a request presents; `middleware/auth.ts`
 * checks it), with their ids (what `DELETE /apiKeys/{id}` names, ref admin §9.1).
 * @module
 */
import { randomBytes, randomUUID } from "node:crypto";
import { notFound } from "../errors";
import type { ApiKey, EnvironmentRecord, KeyRecord } from "./records";
import { Table } from "./table";

/** New key strings, shaped like each service's. */
export const newKeyString = {
  admin: (): string => `adm-${randomBytes(16).toString("hex")}`,
  sdk: (): string => `sdk-${randomBytes(16).toString("hex")}`,
  /** `pat.<account>.<id>.<secret>`, a personal access token of the platform (ref platform §1). */
  platform: (account: string): string =>
    `pat.${account}.${randomBytes(12).toString("hex")}.${randomBytes(10).toString("hex")}`,
};

/** The API keys. */
export class Keys extends Table<KeyRecord> {
  constructor() {
    super((k) => k.key);
  }

  /** Adds (or replaces, by key string) a key; its id and name are made up when absent. */
  add(k: ApiKey, primary = false): KeyRecord {
    return this.put({ ...k, id: k.id ?? randomUUID(), name: k.name ?? `${k.type} key`, primary });
  }

  /** The key with this id. */
  byId(id: string): KeyRecord | undefined {
    return this.find((k) => k.id === id);
  }

  /** Revokes the key with this id; 404 when there is none. */
  revoke(id: string): void {
    const key = this.byId(id);
    if (!key) throw notFound(`Could not find API key ${id}`);
    this.drop(key.key);
  }

  /** Keys that belong to an environment: its SDK keys, and admin keys restricted to it alone. */
  ofEnvironment(env: EnvironmentRecord): KeyRecord[] {
    return this.list().filter(
      (k) =>
        (k.type === "sdk" && k.environments?.[0] === env.id) ||
        (k.type === "admin" && k.environments?.length === 1 && k.environments[0] === env.id),
    );
  }

  /** A new environment's server-side and client-side SDK keys, as the real service makes (ref admin §1.2). */
  createFor(env: EnvironmentRecord): KeyRecord[] {
    return (["server_side", "client_side"] as const).map((apiKeyType) =>
      this.add({
        name: `${env.name} ${apiKeyType === "server_side" ? "server-side" : "client-side"}`,
        key: newKeyString.sdk(),
        type: "sdk",
        apiKeyType,
        environments: [env.id],
        workspaces: [env.workspaceId],
      }),
    );
  }

  /** The server-side SDK key of an environment: its primary one, else the first. */
  serverSideOf(envId: string): KeyRecord | undefined {
    const keys = this.list().filter(
      (k) => k.type === "sdk" && k.environments?.[0] === envId && k.apiKeyType !== "client_side",
    );
    return keys.find((k) => k.primary) ?? keys[0];
  }

  /**
   * Makes the key the options name the primary one of its kind (`match`): keeps the stored one
   * when none is wanted or it is the one wanted, else replaces it by `wanted` (or a new `make()`).
   * Returns the key string.
   */
  ensurePrimary(match: (k: KeyRecord) => boolean, wanted: string | undefined, make: () => ApiKey): string {
    const existing = this.find((k) => k.primary && match(k));
    if (existing && (wanted === undefined || wanted === existing.key)) return existing.key;
    if (existing) this.drop(existing.key);
    const made = make();
    const key = wanted ?? made.key;
    // Any other record of that string gives way, and the primary key comes last.
    this.drop(key);
    return this.add({ ...made, key }, true).key;
  }
}
