/**
 * The FME workspace of a Harness project (a project is its workspace: admin ref §1.2), found
 * through the admin API's workspace list filtered by the project's identifiers. Read by the
 * `Project` kind's outputs and the `getProject` lookup, best-effort.
 * @module
 */
import { z } from "zod";
import { adminClient, providerSettings } from "./config";

/** A workspace in the admin API's answer that names the Harness project it is (admin ref §1.2). */
const ProjectWorkspace = z.looseObject({
  id: z.string(),
  organizationIdentifier: z.string(),
  projectIdentifier: z.string(),
});

/**
 * The id of the FME workspace that is project `identifier` of `org`, best-effort (see the module's
 * TSDoc of `provider/platform/project.ts`): `undefined` without admin API settings, when the lookup fails, or when the answer is not
 * that project's workspace (a service that ignores the filter answers with any workspace).
 */
export async function workspaceOf(org: string, identifier: string): Promise<string | undefined> {
  const settings = providerSettings();
  if (!settings.adminApiUrl || !settings.adminApiKey) return undefined;
  try {
    const answer = ProjectWorkspace.safeParse(
      await adminClient(settings).workspaces.getByHarnessProject(org, identifier),
    );
    if (!answer.success) return undefined;
    const ws = answer.data;
    // Project identifiers are looked up case-insensitively (ref §3).
    const same =
      ws.organizationIdentifier === org && ws.projectIdentifier.toLowerCase() === identifier.toLowerCase();
    return same ? ws.id : undefined;
  } catch {
    return undefined;
  }
}
