/**
 * The state before a change, read from the service, for a door that does not hand it over: the
 * Pulumi engine gives a policy each resource's planned props and no prior state, so
 * `max-traffic-shift` reads each definition as the service serves it now (which is also what users
 * get now, drift included). The provider's settings come from the policy's environment
 * (`FLAGSTACK_ADMIN_API_URL`, `FLAGSTACK_ADMIN_API_KEY`, `FLAGSTACK_ADMIN_AUTH`), as its lookups
 * read them; without them it measures nothing (a Pulumi preview has no other source of the prior
 * state). Segment members are not read: a Pulumi preview measures definition changes, and a
 * segment's members as the stack declares them.
 * @module
 */
import { adminClient, providerSettings } from "../provider/core/config";
import { liveDoc } from "../provider/core/definition-doc";
import { resolveWorkspace } from "../provider/core/resolve";
import { isNotFound } from "../sdk/core/errors";
import type { ChangeTarget } from "./impact";
import { type DefinitionView, isType, readDefinition, TYPES } from "./resources";

/**
 * The targets, each definition whose door did not know its prior state (`beforeKnown` false) and
 * that `wanted` accepts given its `before` as the service holds it now (none when the service has
 * no such definition: the change creates it). Segment members: their planned keys on both sides.
 * @throws Error naming the definition and the settings when the service cannot be read.
 */
export async function withLiveBefore(
  targets: readonly ChangeTarget[],
  wanted: (environment: string, view: DefinitionView) => boolean,
): Promise<ChangeTarget[]> {
  const unknown = targets.filter((t) => t.beforeKnown === false);
  if (unknown.length === 0) return [...targets];
  // No settings where the pack runs: the prior state cannot be read, and nothing is measured (each
  // definition is taken as it is planned; the docs say so); settings that fail are reported.
  const settings = providerSettings();
  const readable = settings.adminApiUrl !== undefined && settings.adminApiKey !== undefined;
  let client: ReturnType<typeof adminClient> | undefined;
  const workspaces = new Map<string, Promise<string>>();
  const out: ChangeTarget[] = [];
  for (const t of targets) {
    if (t.beforeKnown !== false) {
      out.push(t);
      continue;
    }
    if (isType(t.type, TYPES.segmentKeys)) {
      out.push({ ...t, before: t.after });
      continue;
    }
    if (!isType(t.type, TYPES.definition) || t.after === undefined) {
      out.push(t);
      continue;
    }
    // Read first: a value unknown during the preview is the engine's to report ("can't run").
    const view = await readDefinition(t.after);
    const { flagName, environment, workspace } = view;
    if (
      flagName === undefined ||
      environment === undefined ||
      workspace === undefined ||
      !wanted(environment, view)
    ) {
      out.push(t);
      continue;
    }
    if (!readable) {
      out.push({ ...t, before: t.after });
      continue;
    }
    try {
      client ??= adminClient(settings);
      const admin = client;
      let ws = workspaces.get(workspace);
      if (ws === undefined) {
        ws = resolveWorkspace(admin, workspace).then((w) => w.id);
        workspaces.set(workspace, ws);
      }
      const wsId = await ws.catch((e) => {
        if (isNotFound(e)) return undefined;
        throw e;
      });
      const def =
        wsId === undefined
          ? undefined
          : await admin.definitions.get(wsId, flagName, environment).catch((e) => {
              if (isNotFound(e)) return undefined;
              throw e;
            });
      if (def === undefined) {
        out.push({ ...t, before: undefined });
        continue;
      }
      const doc = liveDoc(def);
      out.push({
        ...t,
        before: {
          workspace,
          flag: flagName,
          environment,
          treatments: def.treatments.map((tr) => ({ name: tr.name, keys: tr.keys, segments: tr.segments })),
          defaultTreatment: doc.defaultTreatment,
          trafficAllocation: doc.trafficAllocation,
          rules: doc.rules,
          defaultRule: doc.defaultRule,
          killed: def.killed === true,
        },
      });
    } catch (e) {
      throw new Error(
        `max-traffic-shift reads the definition of flag "${flagName}" in environment "${environment}" from the service, as the engine hands a policy no prior state, and could not: ${(e as Error).message.split("\n")[0]} (set FLAGSTACK_ADMIN_API_URL and FLAGSTACK_ADMIN_API_KEY where the pack runs)`,
      );
    }
  }
  return out;
}
